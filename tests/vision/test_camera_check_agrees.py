"""``camera check`` says what ``read-board`` finds on the same photo: the glare verdict comes
from the board reader, and a resolution just under the minimum never reads as the minimum."""

from __future__ import annotations

import json

import cv2
import numpy as np
from test_vision_camera_check import BOARD, HD
from vision_frames import mild

from companion.cli import main
from companion.sim.render import make_camera, render
from companion.vision.assistant import space_labels
from companion.vision.cli import GLARE_STATUS


def photo(tmp_path, geo, cond):
    frame = render(BOARD, geo, cond, np.random.default_rng(0), size=HD, camera=make_camera(geo, cond, HD)).image
    path = tmp_path / "frame.png"
    cv2.imwrite(str(path), frame)
    return path


def json_of(argv, capsys, codes=(0, 1)):
    code = main(argv)
    out = capsys.readouterr()
    assert code in codes, out.err
    return code, json.loads(out.out)


def test_a_board_just_too_far_is_never_said_to_have_the_pixels_it_needs(tmp_path, capsys, geo):
    path = photo(tmp_path, geo, mild(fill=0.707))
    code, rep = json_of(["camera", "check", "--image", str(path), "--json"], capsys)
    far = rep["px_per_hex_side"]["farthest"]
    assert 34.5 <= far < 35.0          # the case that printed "35 px per hex side, the reader needs 35"
    lower = next(a["text"] for a in rep["advice"] if a["code"] == "lower")
    assert "is 34." in lower and "needs at least 35" in lower and code == 1
    main(["camera", "check", "--image", str(path)])
    assert "farthest 34." in capsys.readouterr().out


def test_the_glare_verdict_is_the_one_read_board_gives(tmp_path, capsys, geo):
    labels = {f"{q},{r}": name for (q, r), name in space_labels().items()}
    for glare, radius in ((140.0, 120.0), (60.0, 200.0)):
        path = photo(tmp_path, geo, mild(glare=glare, glare_radius=radius))
        _, check = json_of(["camera", "check", "--image", str(path), "--json"], capsys)
        code, reading = json_of(["read-board", str(path), "--json"], capsys, codes=(GLARE_STATUS,))
        by_reader = sorted(labels[k] for k, why in reading["unreadable"].items() if why.startswith("glare"))
        assert by_reader, "the photo must have glare the reader cannot see through"
        # not read whole, for glare alone: a script tells it from the exit status (docs/rules.md)
        assert not reading["complete"] and code == GLARE_STATUS
        assert check["glare"]["unreadable_spaces"] == by_reader
        lamp = next(a["text"] for a in check["advice"] if a["code"] == "lamp")
        assert f"glare makes {len(by_reader)} spaces unreadable" in lamp


def test_read_board_help_gives_the_glare_exit_status(capsys):
    import pytest

    with pytest.raises(SystemExit):
        main(["read-board", "--help"])
    words = " ".join(capsys.readouterr().out.split())
    assert f"{GLARE_STATUS} read, but glare leaves spaces unreadable (move or dim the lamp)" in words
    assert "0 the whole board read" in words
