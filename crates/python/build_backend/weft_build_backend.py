"""The package's PEP 517 build backend: maturin's, with Weft's cargo
feature ``llvm`` (the CPU's vector tier, the ``cuda`` device) turned on
when LLVM 19 is found, so that ``pip install ./crates/python`` builds the
fast path wherever it can (docs/python.md, "Builds").

``WEFT_LLVM=1`` requires LLVM (an error without it), ``WEFT_LLVM=0`` builds
without it; the default, ``auto``, looks for ``$LLVM_SYS_191_PREFIX``, then
``llvm-config-19`` and ``llvm-config`` (version 19) on ``PATH``. Arguments
already in ``MATURIN_PEP517_ARGS`` are kept."""

import os
import shutil
import subprocess

import maturin
from maturin import (  # noqa: F401  (the hooks this backend does not change)
    build_sdist,
    get_requires_for_build_editable,
    get_requires_for_build_sdist,
    get_requires_for_build_wheel,
)


def llvm_prefix():
    """LLVM 19's install prefix, or None when it is not found."""
    prefix = os.environ.get("LLVM_SYS_191_PREFIX")
    if prefix:
        return prefix
    for exe in ("llvm-config-19", "llvm-config"):
        path = shutil.which(exe)
        if path is None:
            continue
        try:
            version = subprocess.run([path, "--version"], capture_output=True, text=True, check=True).stdout
            if version.startswith("19."):
                return subprocess.run([path, "--prefix"], capture_output=True, text=True, check=True).stdout.strip()
        except (OSError, subprocess.CalledProcessError):
            continue
    return None


def configure():
    """Adds ``--features llvm`` (and LLVM's prefix for llvm-sys) when LLVM
    19 is there and wanted."""
    mode = os.environ.get("WEFT_LLVM", "auto")
    if mode == "0":
        return
    prefix = llvm_prefix()
    if prefix is None:
        if mode == "1":
            raise RuntimeError(
                "WEFT_LLVM=1: LLVM 19 not found (set LLVM_SYS_191_PREFIX, or install llvm-19-dev); "
                "WEFT_LLVM=0 builds without it (no vector tier, no cuda device)"
            )
        print("weft: LLVM 19 not found: building without the `llvm` feature (no vector tier, no cuda device)")
        return
    os.environ["LLVM_SYS_191_PREFIX"] = prefix
    args = os.environ.get("MATURIN_PEP517_ARGS", "")
    if "llvm" not in args:
        os.environ["MATURIN_PEP517_ARGS"] = f"{args} --features llvm".strip()


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    configure()
    return maturin.build_wheel(wheel_directory, config_settings, metadata_directory)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    configure()
    return maturin.build_editable(wheel_directory, config_settings, metadata_directory)


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    configure()
    return maturin.prepare_metadata_for_build_wheel(metadata_directory, config_settings)


prepare_metadata_for_build_editable = prepare_metadata_for_build_wheel
