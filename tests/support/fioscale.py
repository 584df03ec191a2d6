"""fioscale: a fio job file scaled for a short run, shared by the fio
reference tests (tests/fio/test_fio_ref.py) and bench/fio_examples.py."""
import re


def scaled_copy(src, dst, sets, data):
    """src with `key=value` of sets added at the end of every job section, and every directory= set to
    data (what iobench's --dir does; fio runs in data, for the job files that give none).  A filename=
    or filesize= of sets replaces the section's own (fio 3.33 takes a second filename= as a second file)."""
    out, section = [], None
    keys = {k for k, _ in sets}

    def close():
        if section is not None and section.lower() != "global":
            out.extend(f"{k}={v}" for k, v in sets)

    with open(src) as f:
        for line in f:
            m = re.match(r"\s*\[([^\]]+)\]", line)
            if m:
                close()
                section = m.group(1)
            if re.match(r"\s*directory\s*=", line):
                line = f"directory={data}"
            m = re.match(r"\s*(filename|filesize)\s*=", line)
            if m and m.group(1) in keys:  # the scaled file or size replaces the example's own
                continue
            out.append(line.rstrip("\n"))
    close()
    with open(dst, "w") as f:
        f.write("\n".join(out) + "\n")
