"""The independent checks of the workload library's kernels. Every module here that has checks
defines CHECKS, a map from a workload's name to a function (copies, kernels, args) that raises
common.Mismatch naming the first difference; this package gathers them."""
import importlib
import pkgutil

CHECKS = {}
for _info in pkgutil.iter_modules(__path__):
    if _info.name != "common":
        CHECKS.update(getattr(importlib.import_module(f"{__name__}.{_info.name}"), "CHECKS", {}))
