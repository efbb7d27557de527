"""The till: what a table owes, in pence.

Money is kept in whole pence so that every sum is exact; only `service_charge` rounds.
"""

# Menu prices in pence.
PRICES = {"espresso": 250, "latte": 340, "flat white": 360, "croissant": 280, "scone": 310}

# Tables of six or more covers pay a 12.5% service charge.
SERVICE_RATE = 0.125
LARGE_TABLE = 6


def subtotal(items):
    """Pence owed for `items` (a dict of item name to quantity), before service."""
    return sum(PRICES[name] * quantity for name, quantity in items.items())


def service_charge(amount, covers):
    """The service charge on `amount` pence for a table of `covers` people."""
    if covers < LARGE_TABLE:
        return 0
    return round(amount * SERVICE_RATE)


def total(items, covers):
    """Everything the table owes: the subtotal plus any service charge."""
    amount = subtotal(items)
    return amount + service_charge(amount, covers)


def split(amount, people):
    """Split `amount` pence into `people` shares that differ by at most a penny and add up exactly."""
    share = amount // people
    return [share] * people
