"""The build backend of the hinge Python package (PEP 517 and PEP 660), on
the standard library alone, so that `pip install ./python` needs nothing
from a package index.

A wheel holds the package (hinge/*.py). When the hinge binary has been
put in hinge/bin/ (hinge, or hinge.exe), the wheel bundles it and is tagged
for one platform: the one Python runs on, or HINGE_WHEEL_PLATFORM (a wheel
platform tag such as manylinux2014_aarch64, for a binary cross-compiled with
GOOS and GOARCH). docs/python.md has the steps.
"""

import base64
import hashlib
import io
import os
import re
import stat
import sysconfig
import tarfile
import time
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NAME = "hinge-srl"
DIST = "hinge_srl"
SUMMARY = "hinge (statistical relational learning) from Python: PSL models shaped like pslpython, Markov logic, knowledge-graph completion"


def _version():
    with open(os.path.join(ROOT, "hinge", "__init__.py"), encoding="utf-8") as f:
        return re.search(r'^__version__ = "([^"]+)"', f.read(), re.M).group(1)


def _metadata():
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    return "\n".join([
        "Metadata-Version: 2.1",
        "Name: " + NAME,
        "Version: " + _version(),
        "Summary: " + SUMMARY,
        "License: see the hinge repository",
        "Requires-Python: >=3.8",
        "Provides-Extra: pandas",
        'Requires-Dist: pandas; extra == "pandas"',
        "Description-Content-Type: text/markdown",
        "",
        readme,
    ])


def _package_files():
    """(path in the wheel, path on disk, executable) of the package."""
    out = []
    pkg = os.path.join(ROOT, "hinge")
    for name in sorted(os.listdir(pkg)):
        if name.endswith(".py"):
            out.append(("hinge/" + name, os.path.join(pkg, name), False))
    for name in ("hinge", "hinge.exe"):
        path = os.path.join(pkg, "bin", name)
        if os.path.isfile(path):
            out.append(("hinge/bin/" + name, path, True))
    return out


def _platform_tag():
    """HINGE_WHEEL_PLATFORM as given (it may be a compressed tag set such as
    manylinux2014_x86_64.musllinux_1_1_x86_64), else the running platform's
    tag (linux-x86_64 -> linux_x86_64, macosx-11.0-arm64 -> macosx_11_0_arm64)."""
    tag = os.environ.get("HINGE_WHEEL_PLATFORM")
    if tag:
        if not re.fullmatch(r"[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)*", tag):
            raise ValueError("HINGE_WHEEL_PLATFORM=%r is not a wheel platform tag" % tag)
        return tag
    return re.sub(r"[^\w]", "_", sysconfig.get_platform())


class _Wheel(object):
    def __init__(self, directory, tag, purelib):
        self.name = "%s-%s-%s.whl" % (DIST, _version(), tag)
        self.path = os.path.join(directory, self.name)
        self.zip = zipfile.ZipFile(self.path, "w", zipfile.ZIP_DEFLATED)
        self.record = []
        self.tag = tag
        self.purelib = purelib
        self.info = "%s-%s.dist-info" % (DIST, _version())

    def add(self, arcname, data, executable=False):
        zi = zipfile.ZipInfo(arcname, date_time=(2020, 1, 1, 0, 0, 0))
        zi.compress_type = zipfile.ZIP_DEFLATED
        zi.external_attr = (stat.S_IFREG | (0o755 if executable else 0o644)) << 16
        self.zip.writestr(zi, data)
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        self.record.append("%s,sha256=%s,%d" % (arcname, digest, len(data)))

    def close(self):
        self.add(self.info + "/METADATA", _metadata().encode("utf-8"))
        wheel = "Wheel-Version: 1.0\nGenerator: hinge_build\nRoot-Is-Purelib: %s\nTag: %s\n" % (
            "true" if self.purelib else "false", self.tag)
        self.add(self.info + "/WHEEL", wheel.encode())
        record = "\n".join(self.record + [self.info + "/RECORD,,"]) + "\n"
        zi = zipfile.ZipInfo(self.info + "/RECORD", date_time=(2020, 1, 1, 0, 0, 0))
        zi.external_attr = (stat.S_IFREG | 0o644) << 16
        self.zip.writestr(zi, record)
        self.zip.close()
        return self.name


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    files = _package_files()
    binary = any(exe for _, _, exe in files)
    tag = "py3-none-" + (_platform_tag() if binary else "any")
    w = _Wheel(wheel_directory, tag, purelib=not binary)
    for arcname, path, exe in files:
        with open(path, "rb") as f:
            w.add(arcname, f.read(), exe)
    return w.close()


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    """A wheel that puts this directory on sys.path (a .pth file)."""
    w = _Wheel(wheel_directory, "py3-none-any", purelib=True)
    w.add("__editable__.%s.pth" % DIST, (ROOT + "\n").encode("utf-8"))
    return w.close()


def build_sdist(sdist_directory, config_settings=None):
    base = "%s-%s" % (DIST, _version())
    name = base + ".tar.gz"
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz") as tar:
        def add(arcname, data, mode=0o644):
            ti = tarfile.TarInfo(base + "/" + arcname)
            ti.size, ti.mode, ti.mtime = len(data), mode, int(time.time())
            tar.addfile(ti, io.BytesIO(data))
        add("PKG-INFO", _metadata().encode("utf-8"))
        for rel in ("pyproject.toml", "README.md", "_build/hinge_build.py"):
            with open(os.path.join(ROOT, rel), "rb") as f:
                add(rel, f.read())
        for arcname, path, exe in _package_files():
            if not exe:  # an sdist is the source: no binary
                with open(path, "rb") as f:
                    add(arcname, f.read())
    return name
