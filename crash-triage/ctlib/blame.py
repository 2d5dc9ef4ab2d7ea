"""Which module faulted: the VM's walker, a profiler or agent that called it, a system
library, or JIT code.

The title already starts at the first frame the rules keep; this names the module that
frame is in, so that a bucket tells a VM engineer at a glance whether the crash is the
VM's (libjvm.so) or a caller's (libasyncProfiler.so reading a frame it was handed).
A system library on top (memcpy, strlen) is not the culprit: whoever called it is, so
blame moves down to the first frame outside the system libraries."""
import re

VM_RE = re.compile(r'^libjvm\.(so|dylib)$|^jvm\.dll$')
# the C library, the loader, the C++ runtime and the vDSO: they fault on bad arguments
SYSTEM_RE = re.compile(r'^(libc|libpthread|libdl|librt|libm|ld-linux[\w.-]*|ld64|libstdc\+\+'
                       r'|libgcc_s|libc\+\+|libc\+\+abi|linux-vdso|linux-gate)([.-].*)?$')
# frames with no library: compiled or interpreted Java code, stubs
JAVA_KINDS = 'jJAv'


def module_base(fr):
    return fr.module.rsplit('/', 1)[-1] if fr.module else None


def role(fr):
    """'vm', 'system', 'java', 'agent' (any other library) or 'unknown' for one frame."""
    base = module_base(fr)
    if base is None:
        return 'java' if fr.kind in JAVA_KINDS else 'unknown'
    if VM_RE.match(base):
        return 'vm'
    if SYSTEM_RE.match(base):
        return 'system'
    return 'agent'


def _kept(frames, rules):
    """(frame, ours) for the frames the rules do not skip, top first (what the title is
    made of, before its length limit and stop rules). Our own frames ('own' rules) come
    only once a frame was kept, with ours True: above the fault they are skipped."""
    any_kept = False
    for fr in frames:
        fn = rules.norm_function(fr.function)
        if any(rules._matches(r, fr, fn) for r in rules.skip):
            continue
        if any(rules._matches(r, fr, fn) for r in rules.own):
            if any_kept:
                yield fr, True
            continue
        any_kept = True
        yield fr, False


def faulting(frames, rules):
    """(frame, role) of the frame to blame, or (None, 'unknown')."""
    first = None
    for fr, ours in _kept(frames, rules):
        if ours:
            # only system frames were kept above it (any other was returned): our code
            # called the system function with what broke it
            return fr, 'agent'
        r = role(fr)
        if first is None:
            first = (fr, r)
            if r != 'system':
                return first
            continue
        if r != 'system':
            # the caller of the system function; JIT code calling memcpy is an intrinsic
            # or a stub, keep blaming the library then
            return (fr, r) if r in ('vm', 'agent') else first
    return first or (None, 'unknown')


def assign(rep, rules):
    """Fill rep.extra['module'] (the faulting module's basename, 'java' for JIT and
    interpreted code, None when unknown) and rep.extra['blame'] (its role)."""
    fr, r = faulting(rep.frames, rules)
    rep.extra['module'] = module_base(fr) if fr is not None and fr.module else (
        'java' if r == 'java' else None)
    rep.extra['blame'] = r
    return rep.extra['module']
