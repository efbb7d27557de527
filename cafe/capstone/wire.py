"""What crosses between the grader's process and the harness's: plain JSON, rebuilt on arrival.

Session 16, the capstone. The harness runs in a process of its own (`cafe/capstone/child.py`);
everything it hands the grader (an order through a door, a model request, its report) and
everything the grader hands back (a door's answer, a completion, an error to raise) crosses a
pipe as JSON. JSON can carry only text, numbers, true/false, null, lists and objects, so nothing
a harness wrote (a class whose comparisons lie, a pickle that runs code when it is read) can
reach the grader: the grader rebuilds the course's own types from plain values, and a value that
was not the course's type arrives as a `foreign` stand-in that only names its type.

The pairs, each written on the side that sends and read on the side that receives:

- `order_to_wire` / `order_from_wire`: a `PurchaseOrder`;
- `report_to_wire` / `report_from_wire`: a `RunReport`, its trace as its spans' fields (rebuilt
  as `cafe.trace.Span`s, whose attributes the grader's replay checks as it starts);
- `error_to_wire` / `raise_from_wire`: an exception the grader's side raised, raised again on the
  harness's side as the same kind (an `EndpointError` keeps its status and kind; any other
  kind the harness might catch is a `RuntimeError` naming it);
- `to_json` / `from_json`: the bytes on the pipe.
"""

from __future__ import annotations

import json
from typing import Any

from cafe.capstone.harness import Costs, RunReport
from cafe.capstone.orders import OrderLine, PurchaseOrder
from cafe.capstone.world import GraderHalt, SupplierError, plain
from cafe.endpoint.errors import EndpointError
from cafe.trace import Span, Trace

__all__ = [
    "error_to_wire",
    "foreign",
    "from_json",
    "order_from_wire",
    "order_to_wire",
    "raise_from_wire",
    "report_from_wire",
    "report_to_wire",
    "to_json",
]

# The exceptions raised again as themselves on the harness's side; any other is a RuntimeError.
_AS_THEMSELVES: dict[str, type[BaseException]] = {
    "GraderHalt": GraderHalt,
    "SupplierError": SupplierError,
    "TimeoutError": TimeoutError,
    "TypeError": TypeError,
    "ValueError": ValueError,
}


def _jsonable(value: Any) -> Any:
    """A model message object (the SDK's) as its JSON form; anything else unknown as its text."""
    dump = getattr(value, "model_dump", None)
    return dump(mode="json", exclude_none=True) if callable(dump) else str(value)


def to_json(message: dict[str, Any]) -> bytes:
    return json.dumps(message, default=_jsonable).encode("utf-8")


def from_json(data: bytes) -> dict[str, Any]:
    """A message off the pipe; ValueError when it is not one JSON object."""
    message = json.loads(data.decode("utf-8"))
    if not isinstance(message, dict):
        raise ValueError(f"a message is a JSON object, not {type(message).__name__}")
    return message


def foreign(type_name: Any) -> Any:
    """A stand-in for a value of a type that is not the course's: an object whose type has that
    name and nothing else, so the grader's messages read "returned dict, not a RunReport"."""
    return type(str(type_name)[:60] or "object", (), {})()  # a new, empty class of that name


def _tagged(value: Any) -> dict[str, Any]:
    return {"type": type(value).__name__}


def order_to_wire(order: PurchaseOrder) -> dict[str, Any]:
    """An order as plain values (the caller copied it with `cafe.capstone.world.received`)."""
    lines = [[x.item, x.quantity, x.unit_price_cents] for x in order.lines]
    return {
        "supplier": order.supplier,
        "lines": lines,
        "total": order.total_cents,
        "pay_to": order.pay_to,
    }


def order_from_wire(data: Any) -> PurchaseOrder:
    """The order a message describes, in plain values; TypeError when it describes none."""
    if not isinstance(data, dict) or not isinstance(data.get("lines"), list):
        raise TypeError("this takes a PurchaseOrder")
    lines = tuple(
        OrderLine(*(plain(v) for v in line))
        if isinstance(line, list) and len(line) == 3
        else OrderLine("?", 0, 0)
        for line in data["lines"]
    )
    return PurchaseOrder(
        plain(data.get("supplier")), lines, plain(data.get("total")), plain(data.get("pay_to"))
    )


def report_to_wire(report: Any) -> dict[str, Any]:
    """What the harness returned, as plain values: each field of a `RunReport` that is of the
    course's type, and only the type's name of anything else."""
    if type(report) is not RunReport:
        return _tagged(report)
    orders: Any = _tagged(report.orders)
    if type(report.orders) in (tuple, list):
        orders = [
            order_to_wire(o) if type(o) is PurchaseOrder else _tagged(o) for o in report.orders
        ]
    costs = report.costs
    return {
        "type": "RunReport",
        "stop": plain(report.stop),
        "detail": plain(report.detail),
        "orders": orders,
        "trace": _trace_to_wire(report.trace)
        if type(report.trace) is Trace
        else _tagged(report.trace),
        "costs": [
            plain(v)
            for v in (costs.model_calls, costs.input_tokens, costs.output_tokens, costs.spend_cents)
        ]
        if type(costs) is Costs
        else _tagged(costs),
    }


def _trace_to_wire(trace: Trace) -> dict[str, Any]:
    spans = [
        [s.span_id, s.parent_id, s.kind, s.name, s.start_s, s.end_s, dict(s.attributes)]
        for s in trace.spans
    ]
    return {
        "type": "Trace",
        "trace_id": trace.trace_id,
        "started_at": trace.started_at,
        "spans": spans,
    }


def _span_from_wire(fields: Any) -> Span:
    span_id, parent_id, kind, name, start_s, end_s, attributes = fields
    if not isinstance(attributes, dict):
        raise TypeError("a span's attributes are an object")
    parent = None if parent_id is None else str(parent_id)
    return Span(str(span_id), parent, kind, str(name), float(start_s), float(end_s), attributes)


def _trace_from_wire(data: Any) -> Any:
    if not isinstance(data, dict) or data.get("type") != "Trace":
        return foreign(data.get("type") if isinstance(data, dict) else "object")
    try:
        spans = tuple(_span_from_wire(fields) for fields in data["spans"])
        return Trace(str(data["trace_id"]), str(data["started_at"]), spans)
    except Exception:  # any value that does not make a trace is not a trace
        return foreign("unreadable trace")


def _orders_from_wire(data: Any) -> Any:
    if not isinstance(data, list):
        return foreign(data.get("type") if isinstance(data, dict) else "object")
    found: list[Any] = []
    for entry in data:
        try:
            found.append(order_from_wire(entry))
        except TypeError:
            found.append(foreign(entry.get("type") if isinstance(entry, dict) else "object"))
    return tuple(found)


def report_from_wire(data: Any) -> Any:
    """The report a message describes: a `RunReport` of the course's own types, each field
    rebuilt from plain values, or a `foreign` stand-in for whatever else the harness returned."""
    if not isinstance(data, dict) or data.get("type") != "RunReport":
        return foreign(data.get("type") if isinstance(data, dict) else "object")
    costs = data.get("costs")
    return RunReport(
        plain(data.get("stop")),
        plain(data.get("detail")),
        _orders_from_wire(data.get("orders")),
        _trace_from_wire(data.get("trace")),
        Costs(*(plain(v) for v in costs))
        if isinstance(costs, list) and len(costs) == 4
        else foreign(costs.get("type") if isinstance(costs, dict) else "object"),
    )


def error_to_wire(exc: BaseException) -> dict[str, Any]:
    """An exception raised on the grader's side, as the harness's side will raise it again."""
    wire: dict[str, Any] = {"raise": type(exc).__name__, "message": str(exc)}
    if isinstance(exc, EndpointError):
        wire["endpoint"] = {"base_url": exc.base_url, "status": exc.status, "kind": exc.kind}
    return wire


def raise_from_wire(wire: dict[str, Any]) -> None:
    """Raise, on the harness's side, the exception `error_to_wire` described."""
    name, message = str(wire.get("raise")), str(wire.get("message"))
    endpoint = wire.get("endpoint")
    if isinstance(endpoint, dict):
        raise EndpointError(message, **endpoint)
    kind = _AS_THEMSELVES.get(name)
    if kind is not None:
        raise kind(message)
    raise RuntimeError(f"{name}: {message}")
