"""Writes a wheel (PEP 427, the binary distribution format) with the standard library's zipfile.

The archive holds the files in the order given, then the .dist-info directory with RECORD last
(every file with its sha256 and size; RECORD itself without). Entries carry a fixed timestamp
(SOURCE_DATE_EPOCH, else 1980-01-01) and only the mode bits that matter (0644, 0755 for
executables), so the same files make the same bytes.
"""

import base64
import hashlib
import os
import time
import zipfile


def record_hash(data):
    """RECORD's hash field: sha256=<urlsafe base64 without padding>."""
    digest = hashlib.sha256(data).digest()
    return "sha256=" + base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def _timestamp():
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if epoch and epoch.isdigit():
        stamp = time.gmtime(max(int(epoch), 315532800))  # the zip format starts in 1980
        return stamp[:6]
    return (1980, 1, 1, 0, 0, 0)


def _record_line(path, data):
    if "," in path or '"' in path or "\n" in path:
        raise ValueError("unusual wheel path %r" % path)  # RECORD is CSV; we never need quoting
    return "%s,%s,%d\n" % (path, record_hash(data), len(data))


def write(target, files, dist_info, metadata_files):
    """Write the wheel `target`.

    files: list of (archive path, bytes, executable) for the payload (package, .data/...).
    dist_info: the name of the .dist-info directory.
    metadata_files: list of (file name, bytes) inside dist_info, RECORD excluded.
    """
    stamp = _timestamp()
    record = []
    seen = set()
    tmp = target + ".tmp"
    with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        def add(path, data, executable):
            if path in seen or path.startswith("/") or ".." in path.split("/"):
                raise ValueError("bad or repeated wheel path %r" % path)
            seen.add(path)
            info = zipfile.ZipInfo(path, date_time=stamp)
            info.external_attr = (0o100755 if executable else 0o100644) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, data)
            record.append(_record_line(path, data))

        for path, data, executable in files:
            add(path, data, executable)
        for name, data in metadata_files:
            add("%s/%s" % (dist_info, name), data, False)
        record_path = "%s/RECORD" % dist_info
        record.append("%s,,\n" % record_path)
        add_record = zipfile.ZipInfo(record_path, date_time=stamp)
        add_record.external_attr = 0o100644 << 16
        add_record.compress_type = zipfile.ZIP_DEFLATED
        archive.writestr(add_record, "".join(record).encode("utf-8"))
    os.replace(tmp, target)
