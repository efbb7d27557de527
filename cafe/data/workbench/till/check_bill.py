"""The till's tests. Run them with `python -m pytest -q check_bill.py`."""

from bill import service_charge, split, subtotal, total


def test_subtotal_adds_up_the_items():
    assert subtotal({"latte": 2, "scone": 1}) == 990


def test_service_charge_only_for_large_tables():
    assert service_charge(1000, 4) == 0
    assert service_charge(1000, 6) == 125


def test_total_includes_service():
    assert total({"espresso": 6}, covers=6) == 1500 + 188


def test_split_shares_add_up_to_the_bill():
    shares = split(1000, 3)
    assert sum(shares) == 1000
    assert max(shares) - min(shares) <= 1
