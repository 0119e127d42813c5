"""The build backend: pure and platform wheels, and pip installing the
package without a package index."""

import base64
import hashlib
import importlib.util
import os
import shutil
import subprocess
import sys
import unittest
import zipfile

from tests import _util
from tests._util import PYTHON_DIR


def load_backend(root):
    spec = importlib.util.spec_from_file_location("hinge_build_under_test",
                                                  os.path.join(root, "_build", "hinge_build.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def check_record(test, whl):
    """Every file of the wheel is in its RECORD with its sha256 and size."""
    with zipfile.ZipFile(whl) as z:
        names = z.namelist()
        record = [n for n in names if n.endswith(".dist-info/RECORD")][0]
        rows = [l.split(",") for l in z.read(record).decode().splitlines()]
        test.assertEqual(sorted(r[0] for r in rows), sorted(names))
        for name, digest, size in rows:
            if name == record:
                continue
            data = z.read(name)
            want = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            test.assertEqual((digest, int(size)), ("sha256=" + want, len(data)), name)
        return names, {n: z.getinfo(n) for n in names}, z.read(
            [n for n in names if n.endswith(".dist-info/WHEEL")][0]).decode()


class TestBuild(_util.Case):
    def copy_package(self):
        root = self.path("src")
        os.mkdir(root)
        for name in ("hinge", "_build"):
            shutil.copytree(os.path.join(PYTHON_DIR, name), os.path.join(root, name),
                            ignore=shutil.ignore_patterns("__pycache__", "bin"))
        for name in ("pyproject.toml", "README.md"):
            shutil.copy(os.path.join(PYTHON_DIR, name), root)
        return root

    def test_pure_wheel(self):
        backend = load_backend(self.copy_package())
        self.assertEqual(backend.get_requires_for_build_wheel(), [])
        out = self.path("dist")
        os.mkdir(out)
        name = backend.build_wheel(out)
        self.assertTrue(name.endswith("-py3-none-any.whl"), name)
        names, _, wheel = check_record(self, os.path.join(out, name))
        self.assertIn("hinge/__init__.py", names)
        self.assertIn("hinge/model.py", names)
        self.assertIn("Root-Is-Purelib: true", wheel)
        self.assertFalse(any("/bin/" in n for n in names))
        sdist = backend.build_sdist(out)
        self.assertTrue(os.path.isfile(os.path.join(out, sdist)))

    def test_platform_wheel_bundles_the_binary(self):
        root = self.copy_package()
        os.makedirs(os.path.join(root, "hinge", "bin"))
        exe = os.path.join(root, "hinge", "bin", "hinge")
        shutil.copy(_util.hinge_binary(), exe)
        backend = load_backend(root)
        out = self.path("dist")
        os.mkdir(out)
        old = os.environ.get("HINGE_WHEEL_PLATFORM")
        os.environ["HINGE_WHEEL_PLATFORM"] = "manylinux2014_x86_64.musllinux_1_1_x86_64"
        try:
            name = backend.build_wheel(out)
        finally:
            if old is None:
                del os.environ["HINGE_WHEEL_PLATFORM"]
            else:
                os.environ["HINGE_WHEEL_PLATFORM"] = old
        self.assertTrue(name.endswith("-py3-none-manylinux2014_x86_64.musllinux_1_1_x86_64.whl"), name)
        names, infos, wheel = check_record(self, os.path.join(out, name))
        self.assertIn("Root-Is-Purelib: false", wheel)
        mode = infos["hinge/bin/hinge"].external_attr >> 16
        self.assertEqual(mode & 0o777, 0o755)
        self.assertTrue(mode & 0o100000)  # a regular file, which pip needs to keep the mode

        # Installed, the bundled binary is the one found (HINGE_BIN unset, PATH without hinge).
        site = self.path("site")
        with zipfile.ZipFile(os.path.join(out, name)) as z:
            z.extractall(site)
        os.chmod(os.path.join(site, "hinge", "bin", "hinge"), 0o755)
        code = "import hinge; print(hinge.find_binary())"
        p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=self.tmp,
                           env={"PATH": "/usr/bin:/bin", "PYTHONPATH": site})
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.strip(), os.path.join(site, "hinge", "bin", "hinge"))

    def test_pip_installs_without_an_index(self):
        if subprocess.run([sys.executable, "-m", "pip", "--version"], capture_output=True).returncode != 0:
            self.skipTest("pip is not installed for %s" % sys.executable)
        target = self.path("target")
        p = subprocess.run([sys.executable, "-m", "pip", "install", "--no-index", "--no-deps",
                            "--disable-pip-version-check", "--no-cache-dir", "--target", target,
                            self.copy_package()], capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        code = "import hinge, hinge.mln, hinge.kgc; print(hinge.__file__)"
        p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=self.tmp,
                           env={"PATH": os.environ.get("PATH", ""), "PYTHONPATH": target})
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertTrue(p.stdout.strip().startswith(target), p.stdout)


if __name__ == "__main__":
    unittest.main()
