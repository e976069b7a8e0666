"""Stillness gating and camera sources: read a board only once it is still; reopen a stalled
camera; replay a folder of frames."""

import cv2
import numpy as np
import pytest

from companion.table.gating import StillnessGate
from companion.table.sources import FolderSource, Frame, FrameSource, SourceError, StallWatchdog


def board_image(shift: int = 0) -> np.ndarray:
    img = np.full((360, 640, 3), 200, np.uint8)
    for i in range(0, 640, 40):
        cv2.circle(img, (i + 20, 180), 15, (40, 120, 200), -1)
    if shift:
        cv2.rectangle(img, (300, 150), (340, 210), (10, 10, 10), -1)   # a new piece
    return img


def hand_over(img: np.ndarray) -> np.ndarray:
    out = img.copy()
    cv2.ellipse(out, (320, 100), (160, 90), 0, 0, 360, (120, 150, 210), -1)
    return out


def test_gate_opens_once_after_the_still_window():
    gate = StillnessGate(still_ms=300)
    img = board_image()
    fired = [gate.feed(img, t) for t in range(0, 1000, 100)]
    assert fired.count(True) == 1 and fired.index(True) == 3


def test_motion_resets_the_window_and_a_change_is_read_after_it():
    gate = StillnessGate(still_ms=300)
    a, b = board_image(), board_image(shift=1)
    seq = [a] * 5 + [hand_over(a), hand_over(b)] + [b] * 5
    fired = [gate.feed(img, 100 * i) for i, img in enumerate(seq)]
    assert [i for i, f in enumerate(fired) if f] == [3, 10]


def test_a_hand_resting_still_is_not_read():
    gate = StillnessGate(still_ms=300)
    a = board_image()
    for t in range(0, 500, 100):
        gate.feed(a, t)
    rest = hand_over(a)
    fired = [gate.feed(rest, 500 + 100 * i) for i in range(6)]
    assert not any(fired)


def test_sensor_noise_is_not_motion():
    rng = np.random.default_rng(1)
    gate = StillnessGate(still_ms=300)
    a = board_image()
    fired = [gate.feed(np.clip(a + rng.normal(0, 2, a.shape), 0, 255).astype(np.uint8), 100 * i) for i in range(6)]
    assert fired.count(True) == 1


def test_folder_source_replays_images_in_name_order(tmp_path):
    for i in range(3):
        cv2.imwrite(str(tmp_path / f"f{i}.png"), board_image(shift=i % 2))
    src = FolderSource(tmp_path, period_ms=50)
    src.open()
    frames = [src.read() for _ in range(4)]
    assert [f.t_ms for f in frames[:3]] == [0, 50, 100] and frames[3] is None and src.finished
    with pytest.raises(SourceError, match="no such file"):
        FolderSource(tmp_path / "nope").open()
    (tmp_path / "empty").mkdir()
    with pytest.raises(SourceError, match="no images"):
        FolderSource(tmp_path / "empty").open()


class Silent(FrameSource):
    name = "silent"

    def __init__(self):
        self.opened = 0
        self.frames = []

    def open(self):
        self.opened += 1

    def read(self, timeout=0.5):
        return self.frames.pop(0) if self.frames else None


def test_stalled_camera_is_reopened_and_reported():
    now = [0.0]
    statuses = []
    src = Silent()
    dog = StallWatchdog(src, lambda st, d: statuses.append(st), stall_s=2.0, clock=lambda: now[0])
    now[0] = 1.0
    assert dog.read() is None and src.opened == 0
    now[0] = 2.5
    dog.read()
    assert src.opened == 1 and statuses == ["stalled"]
    src.frames.append(Frame(board_image(), 0))
    assert dog.read() is not None and statuses == ["stalled", "ok"]


def test_a_frame_of_another_size_starts_the_gate_over():
    gate = StillnessGate(still_ms=300)
    a = board_image()
    assert [gate.feed(a, t) for t in range(0, 500, 100)].count(True) == 1
    b = cv2.resize(board_image(shift=1), (480, 360))        # a webcam reopened at 4:3
    fired = [gate.feed(b, 500 + 100 * i) for i in range(6)]
    assert fired.count(True) == 1 and fired.index(True) == 3


def test_a_clock_that_goes_back_starts_the_gate_over():
    gate = StillnessGate(still_ms=300)
    a = board_image()
    for t in range(0, 500, 100):
        gate.feed(a, t + 50_000)
    fired = [gate.feed(board_image(shift=1), 100 * i) for i in range(6)]   # a reopened sensor counts from 0
    assert fired.count(True) == 1 and fired.index(True) == 3


def test_an_unreadable_file_is_skipped_with_its_name(tmp_path):
    cv2.imwrite(str(tmp_path / "a.png"), board_image())
    (tmp_path / "b.png").write_bytes(b"not an image")
    cv2.imwrite(str(tmp_path / "c.png"), board_image(shift=1))
    src = FolderSource(tmp_path)
    src.open()
    assert src.read() is not None
    with pytest.raises(SourceError, match="b.png: unreadable image; skipped"):
        src.read()
    src.reopen()
    assert src.read().t_ms == 200 and src.read() is None and src.finished


def test_a_frame_file_cut_short_is_skipped_not_read_as_half_a_board(tmp_path):
    # OpenCV decodes a JPEG cut short without an error, filling the lost rows with grey
    ok, jpg = cv2.imencode(".jpg", board_image())
    (tmp_path / "a.jpg").write_bytes(jpg.tobytes()[: len(jpg) * 2 // 3])
    cv2.imwrite(str(tmp_path / "b.png"), board_image())
    src = FolderSource(tmp_path)
    src.open()
    with pytest.raises(SourceError, match=r"a.jpg: unreadable image; skipped \(the JPEG file is cut short"):
        src.read()
    src.reopen()
    assert src.read() is not None and src.read() is None


def meeple_moved(img: np.ndarray) -> np.ndarray:
    out = img.copy()
    cv2.circle(out, (500, 260), 6, (20, 20, 160), -1)   # a small piece, well under the motion share
    return out


def test_a_change_no_frame_showed_happening_is_read_once_it_lasts():
    # a camera slower than the hand (or a folder of photos): the meeple is elsewhere from one
    # frame to the next, a change too small to be motion; it must still be read, once
    gate = StillnessGate(still_ms=300)
    a = board_image()
    b = meeple_moved(a)
    assert 0 < (cv2.absdiff(cv2.cvtColor(a, cv2.COLOR_BGR2GRAY), cv2.cvtColor(b, cv2.COLOR_BGR2GRAY)) > 18).mean() < gate.motion_fraction
    seq = [a] * 5 + [b] * 8
    fired = [gate.feed(img, 100 * i) for i, img in enumerate(seq)]
    assert [i for i, f in enumerate(fired) if f] == [3, 8]
    assert not gate.motion
