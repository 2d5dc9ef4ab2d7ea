"""The repro tool's command line, for the tools that run a case the way it does (minimize,
writeup): one place decides a bucket's JDK, route, workload and flags."""
import importlib.machinery
import importlib.util
import os

_HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def repro_cli():
    """crash-triage/repro loaded as a module (it has no .py name to import by)."""
    loader = importlib.machinery.SourceFileLoader('ct_repro_cli', os.path.join(_HERE, 'repro'))
    spec = importlib.util.spec_from_loader('ct_repro_cli', loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod
