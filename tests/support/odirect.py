"""Does a test's work directory support direct I/O?  For tests that need the
direct backend on a real file system: they skip (exit SKIP, registered as
the test's SKIP_RETURN_CODE) with the printed reason when it does not.

The probe is independent of the product: it asks the kernel (open with
O_DIRECT) and the mount table, so a direct backend that broke on a disk
still fails its tests.  Like the direct backend, it counts a memory file
system (tmpfs, ramfs) as having no direct I/O even where the kernel accepts
O_DIRECT there: its page cache is its storage, there is nothing to bypass.
"""
import os
import tempfile

SKIP = 77
MEMORY_FS = ("tmpfs", "ramfs")


def fs_type(directory):
    """The type of the file system holding `directory` ("" if unknown)."""
    path = os.path.realpath(directory)
    best, kind = "", ""
    try:
        with open("/proc/self/mountinfo") as f:
            for line in f:
                fields = line.split()
                if "-" not in fields:
                    continue
                mnt = fields[4].replace("\\040", " ")
                fstype = fields[fields.index("-") + 1]
                inside = path == mnt or path.startswith(mnt.rstrip("/") + "/")
                if inside and len(mnt) >= len(best):
                    best, kind = mnt, fstype
    except OSError:
        return ""
    return kind


def direct_refused(directory):
    """None when files in `directory` can be read and written with direct
    I/O, else one line saying why not."""
    kind = fs_type(directory)
    if kind in MEMORY_FS:
        return "%s is on %s, a memory file system with no direct I/O to measure" % (directory, kind)
    if not hasattr(os, "O_DIRECT"):
        return "this platform has no O_DIRECT"
    fd, path = tempfile.mkstemp(prefix=".odirect-probe-", dir=directory)
    os.close(fd)
    try:
        fd = os.open(path, os.O_RDWR | os.O_DIRECT)
        os.close(fd)
        return None
    except OSError as e:
        return "%s (%s) refuses O_DIRECT: %s" % (directory, kind or "unknown file system", e.strerror)
    finally:
        os.unlink(path)
