"""Plain data across the boundary between the grader and the student's kernel.

The grader never trusts objects that come out of a submission's kernel: the kernel only runs
the student's code on inputs the grader sends, and sends back what it returned as JSON text
built from plain values. This module is both sides of that exchange:

* the grader (and :func:`mllib.grading.run_check`, which simulates the boundary in one
  process) calls :func:`encode` on the inputs and :func:`decode` on what comes back;
* the grader sends this file's *source* to the kernel and runs it there, in a namespace of its
  own, so nothing the kernel needs has to be importable in the sandbox.

It uses only the standard library and numpy. Encoded values are JSON trees: ``None``, bools,
ints, floats (``repr`` round-trips them exactly), strings and lists stand for themselves;
tuples, dicts, arrays, lookup tables and unsupported objects are one-key tagged objects. An
array of numbers travels as the base64 text of its little-endian bytes (as bool, int64, uint64
or float64), with its kind and shape: exact, and for the hidden checks' larger inputs about ten
times faster to write and read than one JSON number per entry.
"""

import base64
import json

import numpy as np

MIME = "application/vnd.mlcourse.answers+json"
MAX_DEPTH = 20  # nesting allowed in an answer: deeper (or self-referencing) values are refused


def _known_type_names():
    """Names of the types and exceptions of Python and numpy, which a verdict may quote."""
    import builtins
    import types

    spaces = (vars(builtins), vars(types), vars(np.exceptions),
              {"LinAlgError": np.linalg.LinAlgError})
    return frozenset(value.__name__ for space in spaces for value in space.values()
                     if isinstance(value, type))


KNOWN_TYPE_NAMES = _known_type_names()
KNOWN_TYPE_NAMES |= {"function", "generator", "method", "builtin_function_or_method",
                     "dict_keys", "dict_values", "dict_items"}


def known_type(name, otherwise):
    """``name`` if it names one of Python's or numpy's own types, else ``otherwise``.

    A type name that comes back from the kernel is the student's text (a class can be created
    with any name, such as one spelling out the hidden inputs), so a verdict quotes only names
    it knows.
    """
    return name if isinstance(name, str) and name in KNOWN_TYPE_NAMES else otherwise


class Opaque:
    """Stands for a returned value that is not plain data (its type name only, when it is one
    of Python's or numpy's own; :func:`known_type`)."""

    def __init__(self, type_name):
        self.type_name = known_type(type_name, "an object of another type")

    def __repr__(self):
        return f"<{self.type_name} object>"


class Lookup:
    """A function given to the student's code as a table of calls and their results.

    The grader cannot hand a live reference function to the kernel (the reference is hidden
    there), so an exercise that takes a function as an argument gets one of these: it answers
    exactly the calls listed, comparing arguments as float arrays.
    """

    def __init__(self, entries, what="this function"):
        self.entries = [(tuple(args), value) for args, value in entries]
        self.what = what

    def __call__(self, *args):
        for known, value in self.entries:
            if len(known) == len(args) and all(map(_same, known, args)):
                return value
        raise ValueError(f"{self.what} was called with arguments it does not know: call it "
                         "with the points you were given, in the same order")


def _same(known, given):
    try:
        given = np.asarray(given, dtype=float)
    except (TypeError, ValueError):
        return False
    known = np.asarray(known, dtype=float)
    return known.shape == given.shape and bool(np.all(known == given))


# An array's kind -> the byte layout it travels in.
_DTYPES = {"b": np.dtype("|b1"), "i": np.dtype("<i8"), "u": np.dtype("<u8"),
           "f": np.dtype("<f8")}


def encode(value, depth=0):
    """A JSON-able tree standing for ``value`` (see the module docstring)."""
    if depth > MAX_DEPTH:
        raise ValueError("the value is nested too deeply")
    kind = type(value)
    if value is None or kind in (bool, int, float, str):
        return value
    if isinstance(value, np.generic):
        value = np.asarray(value)
    if isinstance(value, np.ndarray) and value.dtype.kind in "biuf":
        data = np.ascontiguousarray(value, dtype=_DTYPES[value.dtype.kind]).tobytes()
        return {"__array__": base64.b64encode(data).decode("ascii"), "dtype": value.dtype.kind,
                "shape": list(value.shape)}
    if kind is list:
        return [encode(v, depth + 1) for v in value]
    if kind is tuple:
        return {"__tuple__": [encode(v, depth + 1) for v in value]}
    if kind is dict:
        return {"__dict__": [[encode(k, depth + 1), encode(v, depth + 1)]
                             for k, v in value.items()]}
    if kind in (set, frozenset):
        return {"__set__": [encode(v, depth + 1) for v in value]}
    if kind is Lookup:
        return {"__lookup__": [[encode(args, depth + 1), encode(result, depth + 1)]
                               for args, result in value.entries], "what": value.what}
    try:  # other array-likes (a matrix, an object array of numbers): their numbers
        numbers = np.asarray(value, dtype=float)
    except Exception:  # noqa: BLE001 -- anything that is not numbers is opaque
        return {"__object__": kind.__name__}
    return encode(numbers, depth)




def decode(tree):
    """The Python value an :func:`encode` tree stands for."""
    if isinstance(tree, list):
        return [decode(v) for v in tree]
    if not isinstance(tree, dict):
        return tree
    if "__array__" in tree:
        data = bytearray(base64.b64decode(tree["__array__"], validate=True))  # writable
        return np.frombuffer(data, dtype=_DTYPES[tree["dtype"]]).reshape(tree["shape"])
    if "__tuple__" in tree:
        return tuple(decode(v) for v in tree["__tuple__"])
    if "__dict__" in tree:
        return {_hashable(decode(k)): decode(v) for k, v in tree["__dict__"]}
    if "__set__" in tree:
        return {_hashable(decode(v)) for v in tree["__set__"]}
    if "__lookup__" in tree:
        return Lookup([(decode(args), decode(result)) for args, result in tree["__lookup__"]],
                      tree["what"])
    if "__object__" in tree:
        return Opaque(tree["__object__"])
    raise ValueError("unknown tagged value")


def _hashable(value):
    if isinstance(value, list):
        return tuple(_hashable(v) for v in value)
    if isinstance(value, np.ndarray):
        return tuple(value.tolist())
    return value


def dumps(value):
    """``value`` encoded as JSON text."""
    return json.dumps(encode(value))


def loads(text):
    """The value JSON text from :func:`dumps` stands for."""
    return decode(json.loads(text))


def call_each(function, cases):
    """Call ``function(*args, **kwargs)`` for every ``(args, kwargs)`` of ``cases``.

    Returns one entry per case: ``{"value": encoded result}`` or ``{"error": exception type
    name}`` (not its message, which the grader would not show: :func:`known_type`). Each call
    gets freshly decoded inputs, so a function that changes its arguments in place cannot
    affect the next case. Runs in the kernel.
    """
    results = []
    for args, kwargs in cases:
        try:
            value = function(*decode(args), **decode(kwargs))
            results.append({"value": encode(value)})
        except Exception as error:  # noqa: BLE001 -- the student's error, reported as data
            results.append({"error": type(error).__name__})
    return results


def emit(payload):
    """Send ``payload`` to the grader as one display message of type :data:`MIME`."""
    import builtins  # the kernel's get_ipython(): mllib itself imports no IPython

    builtins.get_ipython().display_pub.publish({MIME: json.dumps(payload)})


def answers(namespace, name, cases_json):
    """Kernel side of a hidden test: call the student's ``name`` on each case and emit."""
    function = namespace.get(name)
    if not callable(function):
        emit({"missing": name})
        return
    emit({"results": call_each(function, json.loads(cases_json))})


_recorded = []


def record(value):
    """Kernel side of a visible test: remember the value the test compares (in order)."""
    _recorded.append(encode(value))


def emit_recorded():
    """Kernel side of a visible test: send every recorded value to the grader."""
    emit({"values": _recorded})
