"""The locations our parse gives operations that have no ``loc(...)`` of their own, and the
positions of its errors: the file, line and column of their text, as MLIR's lexer counts them
(lines end at line feeds, columns count bytes from 1). Our links count lines in a faster way of
their own (cpp/lib/ParserWraps/SourceLocations.cpp); these tests compute every position from
the text itself."""

import json
import os
import random
import signal
import threading
import time

import pytest

from hostoffload.mlir import ir
from hostoffload.mlir._mlir_libs import _hostoffload

# What may come between two ops: blanks, line ends of both kinds, a comment, and a string of
# non-ASCII characters inside an attribute of the op before (columns count its bytes).
SEPARATORS = [" ", "\t", "\n", "\r\n", "\n\n\n", " " * 3000, "  // a comment, é\n", "\n\t  "]


def position(text: bytes, offset: int) -> tuple[int, int]:
    """The line and column of byte ``offset`` of ``text``."""
    line_start = text.rfind(b"\n", 0, offset) + 1
    return text.count(b"\n", 0, offset) + 1, offset - line_start + 1


def layout(seed: int, count: int) -> tuple[bytes, list[int]]:
    """A module of ``count`` ops separated at random, and the offset of each op's name."""
    rng = random.Random(seed)
    text = bytearray()
    offsets = []
    for i in range(count):
        text += rng.choice(SEPARATORS).encode()
        offsets.append(len(text))
        attribute = ' {s = "\u00e9\u4e2d"}' if rng.random() < 0.3 else ""
        text += f'"test.op{i % 7}"(){attribute} : () -> ()'.encode()
    return bytes(text + b"\n"), offsets


def parse(text: bytes, name: bytes = b"m.mlir") -> tuple[list[str], str]:
    """The locations of the parsed module's ops, and the parse's errors."""
    with ir.Context() as context:
        context.allow_unregistered_dialects = True
        module, errors = _hostoffload.parse(context, text, name)
        if module is None:
            return [], errors
        return [str(op.location) for op in module.body.operations], errors


@pytest.mark.parametrize("seed", range(12))
def test_every_op_is_located_at_its_text(seed: int) -> None:
    text, offsets = layout(seed, 400)
    locations, _ = parse(text)
    assert locations == [
        'loc("m.mlir":{}:{})'.format(*position(text, offset)) for offset in offsets
    ]


def test_a_line_of_a_million_bytes_and_ops_after_it() -> None:
    text = b'"test.a"() : () -> ()' + b" " * 1_000_000 + b'"test.b"() : () -> ()\n'
    text += b'  "test.c"() : () -> ()\n'
    assert parse(text)[0] == [
        'loc("m.mlir":1:1)',
        'loc("m.mlir":1:1000022)',
        'loc("m.mlir":2:3)',
    ]


def test_errors_are_located_before_the_last_op_located() -> None:
    # An undeclared value is reported where it was used, when its region ends: after the
    # parse has located every op after the use, on later lines.
    uses = []
    text = bytearray(b'"test.region"() ({\n')
    for i in range(50):
        text += b"  " * (i % 4) + b'"test.a"() : () -> ()\n'
        if i % 10 == 3:
            uses.append(len(text) + len(b'  "test.use"('))
            text += f'  "test.use"(%undefined{i}) : (i32) -> ()\n'.encode()
    text += b"}) : () -> ()\n"
    _, errors = parse(bytes(text))
    reported = [
        (error["location"]["line"], error["location"]["column"])
        for error in json.loads(errors)["errors"]
    ]
    assert reported and set(reported) <= {position(bytes(text), use) for use in uses}


def test_lexer_errors_are_located() -> None:
    for prefix in (b"", b"\n\n  ", b'"test.a"() : () -> ()\r\n\t', b" " * 70_000):
        text = prefix + b'"test.b"() : () -> ()  $'
        _, errors = parse(text)
        (error,) = json.loads(errors)["errors"]
        expected = position(text, len(text) - 1)
        assert (error["location"]["line"], error["location"]["column"]) == expected


def test_the_location_names_the_buffer() -> None:
    text = b'\n "test.a"() : () -> ()\n'
    assert parse(text, b"first.mlir")[0] == ['loc("first.mlir":2:2)']
    assert parse(text, b"second.mlir")[0] == ['loc("second.mlir":2:2)']
    # MLIR names text of no name "-", as it does standard input.
    assert parse(text, b"")[0] == ['loc("-":2:2)']
    # MLIR prints the bytes of a name that are not ASCII escaped.
    assert parse(text, "caf\u00e9.mlir".encode())[0] == ['loc("caf\\C3\\A9.mlir":2:2)']


def test_parses_on_several_threads_each_locate_their_own_text() -> None:
    texts = [layout(100 + seed, 300) for seed in range(6)]
    expected = [
        ['loc("m.mlir":{}:{})'.format(*position(text, offset)) for offset in offsets]
        for text, offsets in texts
    ]
    results: dict[int, list[list[str]]] = {}

    def run(index: int) -> None:
        # Each thread parses the texts in another order, so that parses of different texts
        # run at once.
        order = list(range(index, len(texts))) + list(range(index))
        results[index] = [[]] * len(texts)
        for i in order * 3:
            results[index][i] = parse(texts[i][0])[0]

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(texts))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for index in range(len(texts)):
        assert results[index] == expected


def test_a_child_forked_while_another_thread_parses_can_parse() -> None:
    # The child only parses, in a context made before the fork, and compares bytes: making a
    # context, reading an op's location or importing takes locks of Python's, which a fork
    # amid another thread's work may leave held.
    text, _ = layout(7, 2000)
    failing = text + b'  "test.use"(%undefined) : (i32) -> ()\n'
    stop = threading.Event()

    def parse_until_stopped() -> None:
        while not stop.is_set():
            parse(text)

    thread = threading.Thread(target=parse_until_stopped)
    with ir.Context() as context:
        context.allow_unregistered_dialects = True
        _, expected = _hostoffload.parse(context, failing, b"m.mlir")
        line, column = position(failing, len(failing) - len(b"%undefined) : (i32) -> ()\n"))
        assert f'"line":{line},"column":{column}' in expected
        thread.start()
        try:
            for _ in range(20):
                time.sleep(0.005)
                pid = os.fork()
                if pid == 0:
                    _, errors = _hostoffload.parse(context, failing, b"m.mlir")
                    os._exit(0 if errors == expected else 1)
                deadline = time.monotonic() + 60
                while True:
                    done, status = os.waitpid(pid, os.WNOHANG)
                    if done:
                        assert os.waitstatus_to_exitcode(status) == 0
                        break
                    if time.monotonic() > deadline:
                        os.kill(pid, signal.SIGKILL)
                        os.waitpid(pid, 0)
                        pytest.fail("the forked child did not finish its parse")
                    time.sleep(0.01)
        finally:
            stop.set()
            thread.join()
