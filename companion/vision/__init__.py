"""The camera's view of the board: registration, per-space classification, colour profile.

:mod:`~companion.vision.geometry` reads the edition's board geometry in mm,
:mod:`~companion.vision.registration` finds the homography from the ArUco markers,
:mod:`~companion.vision.sampling` maps colour sample points onto the camera frame,
:mod:`~companion.vision.profile` holds the Lab colour profile, and
:mod:`~companion.vision.classify` turns the samples into the board part of a position.
:mod:`~companion.vision.reader` ties them together for ``read-board``.
"""
