# SPDX-License-Identifier: GPL-2.0
"""The VM runs of ci/bench.py and ci/latency.py, through ci/vm-run.

ci/vm-run holds the QEMU command line; a script gives only its runs' own
options: one vCPU and the QEMU options it adds (virtual time, -icount).
qemu_options() is what the script records in its JSON results: the
machine options ci/vm-run -p prints for those runs. Both scripts import
this module from their own directory (sys.path[0] of a script run by
path, whatever the current directory).
"""

import os
import subprocess

VM_RUN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "vm-run")


def command(qemu_args, *args):
    """ci/vm-run with one vCPU, qemu_args added to QEMU's, then args."""
    return [VM_RUN, "-s", "1", "-Q", qemu_args] + list(args)


def qemu_options(qemu_args):
    """The QEMU machine options of those runs, as ci/vm-run -p prints them."""
    return subprocess.run(command(qemu_args, "-p"), capture_output=True,
                          text=True, check=True).stdout.strip()
