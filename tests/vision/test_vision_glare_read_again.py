"""In play a space glare left unreadable is read afresh on every frame, as a covered one is:
the lamp may be moved or dimmed while nobody touches the board, and the samples of a space whose
reflection went may still look like what was committed there within noise.  A static spot read
again under the committed spot is glare again, not a new reading."""

from __future__ import annotations

from test_vision_reader import every_piece
from vision_frames import SIZE, mild, shoot

from companion.sim.render import make_camera
from companion.vision.reader import BoardReader


def test_spaces_unreadable_under_glare_are_read_again_on_a_still_frame(geo, codes):
    cond = mild(glare=70.0, glare_xy=(0.45, 0.4), glare_radius=120.0)
    frame, intr = shoot(every_piece(codes), geo, cond, seed=1, camera=make_camera(geo, cond, SIZE))
    reader = BoardReader(geo, intrinsics=intr, tile_codes=codes, refine_grid=False)
    first = reader.read(frame.image)
    glare = {k: why for k, why in first.unreadable.items() if why.startswith("glare")}
    assert glare, "the photo must have glare the reader cannot see through"
    again = reader.read(frame.image, previous=first)   # the same frame: no sample changed
    assert again.changed == len(first.unreadable)      # every unreadable space was read afresh
    assert {k: why for k, why in again.unreadable.items() if k in glare} == glare
