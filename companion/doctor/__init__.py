"""``mycelium-companion doctor``: is this table ready to play?  One line per check, each with
what to do when it is not.

Every check reads the machine through :class:`Probes` (camera list, serial port, reader
handshake, disk, clock, network), so the tests swap in fakes.  A check ends ``ok``, ``warn``
(works, but something will bite later), ``fail`` (the table will not work as it should) or
``unknown`` (this version of the companion or firmware does not report it).  The exit status
is 1 when any check failed, else 0.

By default it checks what the boot service uses: the camera, reader port and ``run`` arguments
in ``/etc/default/mycelium-companion`` (written by ``make pi``), then the command line's.
"""


from companion.doctor.checks import (SETTINGS, Check, Settings, camera_name, check_camera, check_camera_controls,
                                     check_clock, check_dashboard, check_intrinsics, check_log_folder, check_profile,
                                     check_reader, check_reader_health, read_settings, run_checks, wait_for_camera)
from companion.doctor.cli import cmd_doctor, register
from companion.doctor.probes import ProbeError, Probes, ReaderReply

__all__ = ["SETTINGS", "Check", "ProbeError", "Probes", "ReaderReply", "Settings", "camera_name", "check_camera",
           "check_camera_controls", "check_clock", "check_dashboard", "check_intrinsics", "check_log_folder",
           "check_profile", "check_reader", "check_reader_health", "cmd_doctor", "read_settings", "register",
           "run_checks", "wait_for_camera"]
