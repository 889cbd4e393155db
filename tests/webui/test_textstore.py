"""webui.textstore: a text cut where its content says, into pieces that put it back together."""

from hypothesis import given, settings
from hypothesis import strategies as st

from webui import textstore
from webui.textstore import PIECE_MAX, PIECE_MIN


def _dump(count: int, start: int = 0) -> str:
    return "".join(
        f"---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: pod-{i}\n  namespace: ns-{i % 13}\nspec:\n"
        f"  containers:\n  - name: c\n    image: app:{i % 5}\n"
        for i in range(start, start + count)
    )


DUMP = _dump(40000)


def _joined(text: str) -> str:
    return "".join(piece.text for piece in textstore.pieces(text))


def test_a_small_text_is_one_piece_and_the_empty_text_one_empty_piece():
    assert [p.text for p in textstore.pieces("kind: Node\n")] == ["kind: Node\n"]
    assert [p.text for p in textstore.pieces("")] == [""]


def test_a_dump_is_cut_at_document_starts_into_pieces_of_bounded_size():
    pieces = list(textstore.pieces(DUMP))
    assert "".join(p.text for p in pieces) == DUMP and len(pieces) > 10
    assert all(p.text.startswith("---\n") for p in pieces)
    assert all(PIECE_MIN <= len(p.text) <= PIECE_MAX for p in pieces[:-1])
    assert all(p.digest == textstore.digest_of(p.text) for p in pieces)


def test_an_edit_inserted_or_appended_changes_only_the_pieces_around_it():
    before = {p.digest for p in textstore.pieces(DUMP)}
    at = DUMP.index("---\n", len(DUMP) // 3)
    inserted = DUMP[:at] + _dump(3, start=10**6) + DUMP[at:]
    appended = DUMP + "---\nkind: Changes\nsteps: []\n"
    renamed = DUMP.replace("name: pod-20000\n", "name: pod-20000-b\n")
    for changed in (inserted, appended, renamed):
        assert sum(p.digest not in before for p in textstore.pieces(changed)) <= 2


def test_a_text_with_no_document_start_is_cut_at_line_ends_past_the_largest_piece():
    one_document = '{"items": [\n' + '  {"kind": "Pod", "metadata": {"name": "p"}},\n' * 200000 + "]}\n"
    pieces = [p.text for p in textstore.pieces(one_document)]
    assert "".join(pieces) == one_document and len(pieces) > 1
    assert all(piece.endswith("\n") and len(piece) <= PIECE_MAX + 100 for piece in pieces)


def test_pieces_compress_and_read_back():
    piece = next(textstore.pieces(DUMP))
    data = textstore.compress(piece)
    assert len(data) < len(piece.text) / 5 and textstore.decompress(data) == piece.text


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(["---\n", "kind: Pod\n", "x" * 5000 + "\n", "é\n", "\n", "--- a\n"]), max_size=400))
def test_any_text_is_put_back_together_exactly(parts):
    text = "".join(parts)
    assert _joined(text) == text
