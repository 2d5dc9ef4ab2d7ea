"""Frame normalization, crash titles and signatures, driven by rules.json."""
import hashlib
import json
import os
import re

from . import blame, trampoline

DEFAULT_RULES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'rules.json')


class RulesError(Exception):
    pass


def _compile(entry, keys, where):
    out = {}
    for k in keys:
        if k in entry:
            try:
                out[k] = re.compile(entry[k])
            except (re.error, TypeError) as e:
                raise RulesError('%s: bad regex %r: %s' % (where, entry.get(k), e))
    return out


FRAME_KEYS = ('function', 'module', 'kind', 'no_function', 'no_module', 'why')
# What each list's entries may hold; every entry needs a non-empty 'why'.
LIST_KEYS = {
    'normalize': ('re', 'sub', 'repeat', 'why'),
    'own': FRAME_KEYS,
    'skip': FRAME_KEYS,
    'entry': FRAME_KEYS,
    'probe_faults': FRAME_KEYS,
    'stop_after': FRAME_KEYS,
    'stop_before': FRAME_KEYS,
    'boundary': FRAME_KEYS,
    'generic': FRAME_KEYS + ('more',),
    'signal_classes': ('signal', 'message', 'class', 'why'),
    'suppressions': ('title', 'why'),
}
TOP_KEYS = {'_comment', 'version', 'top_frames', 'alt_top_frames', 'frame_separator',
            'title_format', 'title_format_no_frames', 'title_format_no_stack', 'signature_hex_digits'} | set(LIST_KEYS)
# The type each field must have when present: (test, what it must be). The top-level
# numbers and strings have defaults; the lists do not (a file without them has no rules).
_WHOLE = (lambda v: isinstance(v, int) and not isinstance(v, bool) and v >= 1, 'a whole number >= 1')
_STR = (lambda v: isinstance(v, str), 'a string')
_BOOL = (lambda v: isinstance(v, bool), 'true or false')
TOP_TYPES = {'_comment': _STR, 'version': (lambda v: type(v) is int and v == 1, '1'), 'top_frames': _WHOLE,
             'alt_top_frames': _WHOLE, 'frame_separator': _STR, 'title_format': _STR,
             'title_format_no_frames': _STR, 'title_format_no_stack': _STR,
             'signature_hex_digits': (lambda v: _WHOLE[0](v) and v <= 64, 'a whole number from 1 to 64')}
RULE_TYPES = {'re': _STR, 'sub': _STR, 'repeat': _WHOLE, 'function': _STR, 'module': _STR, 'kind': _STR,
              'no_function': _BOOL, 'no_module': _BOOL, 'signal': _STR, 'message': _STR, 'class': _STR,
              'title': _STR, 'more': _WHOLE}


def validate(data, src='rules'):
    """Refuse unknown keys, missing lists, fields of the wrong type, entries without a
    'why' and duplicate entries, naming the file, the list, the rule's number (1-based)
    and the key."""
    if not isinstance(data, dict):
        raise RulesError('%s: the top level must be a JSON object' % src)
    for k in data:
        if k not in TOP_KEYS:
            raise RulesError('%s: unknown top-level key %r' % (src, k))
    missing = [name for name in LIST_KEYS if name not in data]
    if missing:
        raise RulesError('%s: %smissing list%s %s (a rules file gives every list, an empty one as [])'
                         % (src, 'no rules: ' if len(missing) == len(LIST_KEYS) else '',
                            's' if len(missing) > 1 else '', ', '.join(repr(m) for m in missing)))
    for k, (good, want) in TOP_TYPES.items():
        if k in data and not good(data[k]):
            raise RulesError('%s: %r must be %s, not %s' % (src, k, want, json.dumps(data[k])))
    # A title format with another placeholder (or a stray brace) would fail on the first
    # report titled, long after the rules were read.
    for k, fields in (('title_format', ('signal', 'frames')), ('title_format_no_frames', ('signal',)),
                      ('title_format_no_stack', ('signal',))):
        if k in data:
            try:
                data[k].format(**{f: 'x' for f in fields})
            except (KeyError, IndexError, ValueError, AttributeError, TypeError) as e:
                raise RulesError('%s: %r %s: only %s may appear in braces (%s)'
                                 % (src, k, json.dumps(data[k]), ' and '.join('{%s}' % f for f in fields), e))
    for name, allowed in LIST_KEYS.items():
        lst = data.get(name, [])
        if not isinstance(lst, list):
            raise RulesError('%s: %r must be a list' % (src, name))
        seen = {}
        for i, e in enumerate(lst):
            where = '%s: %s rule %d' % (src, name, i + 1)
            if not isinstance(e, dict):
                raise RulesError('%s: not an object' % where)
            for k in e:
                if k not in allowed:
                    raise RulesError('%s: unknown key %r (allowed: %s)' % (where, k, ', '.join(allowed)))
            if not isinstance(e.get('why'), str) or not e['why'].strip():
                raise RulesError("%s: missing key 'why' (every rule says why it exists)" % where)
            if name == 'signal_classes' and 'class' not in e:
                raise RulesError("%s: missing key 'class' (the name it gives the signal)" % where)
            for k, v in e.items():
                if k in RULE_TYPES and not RULE_TYPES[k][0](v):
                    raise RulesError('%s: key %r must be %s, not %s' % (where, k, RULE_TYPES[k][1], json.dumps(v)))
            body = json.dumps({k: v for k, v in e.items() if k != 'why'}, sort_keys=True)
            if body in seen:
                raise RulesError('%s: duplicate of rule %d (same %s)'
                                 % (where, seen[body] + 1, ', '.join(sorted(k for k in e if k != 'why')) or 'keys'))
            seen[body] = i
            if name == 'generic' and not (isinstance(e.get('more'), int) and e['more'] >= 1):
                raise RulesError("%s: key 'more' must be a whole number >= 1" % where)


class Rules:
    def __init__(self, data, top=None, src='rules'):
        validate(data, src)
        self.raw = data
        self.top = int(top if top is not None else data.get('top_frames', 3))
        if self.top < 1:
            raise RulesError('top_frames must be >= 1')
        self.alt_top = int(data.get('alt_top_frames', 1))
        self.sep = data.get('frame_separator', ' < ')
        self.fmt = data.get('title_format', '{signal} in {frames}')
        self.fmt_none = data.get('title_format_no_frames', '{signal} in unknown')
        self.fmt_no_stack = data.get('title_format_no_stack', '{signal} with no stack')
        self.digits = int(data.get('signature_hex_digits', 12))
        self.normalize = []
        for i, e in enumerate(data.get('normalize', [])):
            c = _compile(e, ['re'], 'normalize[%d]' % i)
            self.normalize.append((c['re'], e.get('sub', ''), int(e.get('repeat', 1))))
        lists = {}
        for name in ('own', 'skip', 'entry', 'probe_faults', 'stop_after', 'stop_before', 'boundary', 'generic'):
            lists[name] = [self._frame_rule(e, '%s rule %d' % (name, i + 1))
                           for i, e in enumerate(data.get(name, []))]
        self.own, self.skip = lists['own'], lists['skip']
        self.entry, self.probe = lists['entry'], lists['probe_faults']
        self.stop_after, self.stop_before = lists['stop_after'], lists['stop_before']
        self.boundary = lists['boundary']
        self.generic = lists['generic']
        self.classes = []
        for i, e in enumerate(data.get('signal_classes', [])):
            c = _compile(e, ['signal', 'message'], 'signal_classes[%d]' % i)
            self.classes.append((c, e['class']))
        self.suppressions = []
        for i, e in enumerate(data.get('suppressions', [])):
            c = _compile(e, ['title'], 'suppressions[%d]' % i)
            self.suppressions.append((c['title'], e.get('why', '')))

    @staticmethod
    def _frame_rule(e, where):
        r = _compile(e, ['function', 'module', 'kind'], where)
        r['no_function'] = bool(e.get('no_function'))
        r['no_module'] = bool(e.get('no_module'))
        r['why'] = e.get('why', '')
        r['more'] = int(e.get('more', 0))
        r['where'] = where
        return r

    @classmethod
    def load(cls, path=None, top=None):
        path = path or DEFAULT_RULES
        try:
            with open(path) as f:
                data = json.load(f)
        except (OSError, ValueError) as e:
            raise RulesError('cannot load rules %s: %s' % (path, e))
        return cls(data, top, path)

    # -- frames --------------------------------------------------------------
    def norm_function(self, name):
        if not name:
            return None
        s = name[:4096]
        for rx, sub, rep in self.normalize:
            for _ in range(rep):
                t = rx.sub(sub, s)
                if t == s:
                    break
                s = t
        s = s.strip()
        return s or None

    def frame_name(self, fr):
        fn = self.norm_function(fr.function)
        if fn:
            return fn
        if fr.module:
            base = fr.module.rsplit('/', 1)[-1]
            return '%s+0x%x' % (base, fr.offset) if fr.offset is not None else base
        return '?'

    @staticmethod
    def _matches(rule, fr, fn):
        if rule['no_function'] and fn:
            return False
        if rule['no_module'] and fr.module:
            return False
        if 'function' in rule and not (fn and rule['function'].search(fn)):
            return False
        if 'module' in rule:
            base = fr.module.rsplit('/', 1)[-1] if fr.module else ''
            if not (base and rule['module'].search(base)):
                return False
        if 'kind' in rule and not rule['kind'].search(fr.kind or ''):
            return False
        return True

    def _first(self, rules, fr, fn):
        for r in rules:
            if self._matches(r, fr, fn):
                return r
        return None

    def analyse(self, frames, limit=None):
        """Walk the frames innermost first: (root-cause names, the API entry the fault
        was reached through or None, one (frame index, verdict, rule) step per frame looked at).

        The signature is the fault's own frames up to, not including, the API entry:
        the entry, the harness below it and the signal frames are context. A fault in
        the entry function itself has no frame above it: the entry is the signature.
        A boundary (the signal trampoline) ends the fault's own stack wherever it is:
        below it lies the code the signal interrupted. Our own code (the 'own' rules) is
        skipped above the fault's frames and ends them below: there the VM called our
        code (an iterator callback, a queue handler, a frame-mark handler) and that code
        called the VM again, so what lies further down is the VM code that drove the
        callback, which differs with the path and not with the bug."""
        return self._walk(frames, limit)[:3]

    def ended_early(self, frames, limit=None):
        """Whether the signature ran out of frames: no entry, boundary, stop rule or
        limit ended it, the unwinder did. Its names may then be a prefix of the
        signature a deeper unwind of the same fault gives."""
        names, _, _, how = self._walk(frames, limit)
        return bool(names) and how == 'ran out'

    def _walk(self, frames, limit):
        """analyse(), and how the signature ended: 'entry', 'end' (boundary), 'stop',
        'full' (the limit or a stop_after rule) or 'ran out'."""
        limit = limit or self.top
        out, via, steps, full, how = [], None, [], False, 'ran out'
        last_generic = False
        for i, fr in enumerate(frames):
            fn = self.norm_function(fr.function)
            name = self.frame_name(fr)
            r = self._first(self.boundary, fr, fn)
            if r:
                steps.append((i, 'end: below it is the code the signal interrupted', r))
                how = 'end'
                break
            r = out and self._first(self.stop_before, fr, fn)
            if r:
                steps.append((i, 'stop', r))
                how = 'stop'
                break
            r = self._first(self.own, fr, fn)
            if r and out:
                if last_generic and not full:
                    # a libc helper (strlen, memcpy) our code called: the caller names the bug
                    out.append(name)
                    steps.append((i, 'keep, the generic helper\'s caller; stop: our code', r))
                else:
                    steps.append((i, 'stop: our code, which the VM called back', r))
                how = 'stop'
                break
            if r:
                steps.append((i, 'skip', r))
                continue
            r = self._first(self.skip, fr, fn)
            if r:
                steps.append((i, 'skip', r))
                continue
            r = self._first(self.entry, fr, fn)
            if r:
                via = name
                how = 'entry'
                if not out:
                    out.append(name)
                    steps.append((i, 'entry, kept (no frame above it)', r))
                else:
                    steps.append((i, 'entry: context ("reached via")', r))
                break
            if full:            # the signature is complete; only the entry is looked for
                steps.append((i, 'beyond the signature', None))
                continue
            out.append(name)
            g = self._first(self.generic, fr, fn)
            last_generic = bool(g)
            if g:
                limit += g['more']
                steps.append((i, 'keep, generic helper: %d more' % g['more'], g))
            else:
                steps.append((i, 'keep', None))
            r = self._first(self.stop_after, fr, fn)
            if r:
                steps.append((i, 'stop', r))
                full = True
            elif len(out) >= limit:
                full = True
        if full and how == 'ran out':
            how = 'full'
        return out, via, steps, how

    def meaningful(self, frames, limit):
        """Names of the first `limit` root-cause frames."""
        return self.analyse(frames, limit)[0]

    def probe_fault(self, rep):
        """The rule saying the fault is the VM's own probing (SafeFetch), or None:
        looked for in the first frame that is not skipped."""
        if not self.probe:
            return None
        for fr in rep.frames:
            fn = self.norm_function(fr.function)
            r = self._first(self.probe, fr, fn)
            if r:
                return r
            if not (self._first(self.own, fr, fn) or self._first(self.skip, fr, fn)):
                return None
        return None

    def signal_class(self, rep):
        sig = rep.signal or 'UNKNOWN'
        for c, cls in self.classes:
            if 'signal' in c and not c['signal'].search(sig):
                continue
            if 'message' in c and not (rep.message and c['message'].search(rep.message)):
                continue
            return cls
        return sig

    def title(self, rep, limit=None):
        limit = limit or self.top
        names = self.meaningful(rep.frames, limit)
        sig = self.signal_class(rep)
        if not rep.frames:      # the report holds no frame at all (cut before its stack)
            return self.fmt_no_stack.format(signal=sig), []
        if not names:           # frames, none of which names the fault (a wild jump, stubs only)
            return self.fmt_none.format(signal=sig), []
        return self.fmt.format(signal=sig, frames=self.sep.join(names)), names

    def signature(self, title):
        return hashlib.sha256(title.encode('utf-8', 'replace')).hexdigest()[:self.digits]

    def suppression(self, title):
        for rx, why in self.suppressions:
            if rx.search(title):
                return why
        return None


def continues(deep_frames, deep_signal, frames, signal):
    """Whether a backtrace of `frames` that ended early can be a shallower unwind of the
    fault titled by `deep_frames`: the same signal class, and the deeper title starts with
    every one of its frames. Triage folds on it; repro counts such an attempt."""
    return (bool(frames) and signal == deep_signal and len(deep_frames) > len(frames)
            and deep_frames[:len(frames)] == frames)


def describe(rep, rules):
    """Fill rep.extra with title/alt/frame/signature; return the title."""
    trampoline.mark(rep)
    title, names = rules.title(rep)
    alt = None
    if rules.alt_top < rules.top:
        a, _ = rules.title(rep, rules.alt_top)
        if a != title:
            alt = a
    if not names:
        rep.flag('corrupted')
    via = rules.analyse(rep.frames)[1]
    # the entry the fault was reached through: its frame, else the one the record names
    rep.extra['via'] = via or rep.extra.get('entry')
    rep.extra['title'] = title
    rep.extra['alt'] = alt
    rep.extra['frame'] = names[0] if names else None
    rep.extra['frames'] = names
    rep.extra['ended_early'] = rules.ended_early(rep.frames)
    rep.extra['signature'] = rules.signature(title)
    blame.assign(rep, rules)        # rep.extra['module']: who faulted, VM or caller
    sup = rules.suppression(title)
    if sup:
        rep.extra['suppressed'] = sup
    return title


def explain(rep, rules):
    """Lines saying, frame by frame, what the rules did and what signature results."""
    trampoline.mark(rep)
    names, via, steps = rules.analyse(rep.frames)
    lines = ['file: %s (%s)' % (rep.path, rep.kind),
             'signal: %s -> class %s' % (rep.signal, rules.signal_class(rep))]
    probe = rules.probe_fault(rep)
    verdicts = {}
    for i, verdict, rule in steps:
        why = (' [%s: %s]' % (rule['where'], rule['why'])) if rule else ''
        verdicts.setdefault(i, []).append(verdict + why)
    for i, fr in enumerate(rep.frames):
        where = fr.module.rsplit('/', 1)[-1] if fr.module else '?'
        if fr.offset is not None:
            where += '+0x%x' % fr.offset
        raw = fr.function or '(no name)'
        verdict = '; '.join(verdicts.get(i, ['not part of the signature']))
        lines.append('  #%-3d %-6s %-40s %s%s %s' % (i, fr.kind, raw[:120], where,
                                                     ' (inlined)' if fr.inlined else '',
                                                     '-> ' + verdict))
    if not rep.frames:
        lines.append('  (no frames)')
    for path, now in sorted(rep.extra.get('other_build', {}).items()):
        lines.append('not named: %s is now another build (build-id %s; the report ran %s), and that '
                     "build's debug file is not here" % (path, now, rep.extra['build_ids'][path]))
    if probe:
        lines.append('probe fault: %s [%s] -> not a bucket' % (probe['why'], probe['where']))
    title = describe(rep, rules)
    lines.append('reached via: %s' % (rep.extra.get('via') or 'unknown'))
    if rep.extra.get('tainted'):
        lines.append('tainted: after a caught fault inside %s (key %s) in this process, which may have '
                     'left VM state half-changed' % tuple(rep.extra['tainted'].split(' ', 1)))
    if rep.extra['ended_early']:
        lines.append('ends early: the backtrace ran out after %d frame%s of the signature; a bucket '
                     'whose signature starts with them takes this report, if there is exactly one '
                     '(the same fault, unwound deeper)' % (len(names), '' if len(names) == 1 else 's'))
    lines.append('title: %s' % title)
    lines.append('signature: %s' % rep.extra['signature'])
    return lines
