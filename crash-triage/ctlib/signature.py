"""Frame normalization, crash titles and signatures, driven by rules.json."""
import hashlib
import json
import os
import re

from . import blame

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


class Rules:
    def __init__(self, data, top=None):
        self.raw = data
        self.top = int(top if top is not None else data.get('top_frames', 3))
        if self.top < 1:
            raise RulesError('top_frames must be >= 1')
        self.alt_top = int(data.get('alt_top_frames', 1))
        self.sep = data.get('frame_separator', ' < ')
        self.fmt = data.get('title_format', '{signal} in {frames}')
        self.fmt_none = data.get('title_format_no_frames', '{signal} in unknown')
        self.digits = int(data.get('signature_hex_digits', 12))
        self.normalize = []
        for i, e in enumerate(data.get('normalize', [])):
            c = _compile(e, ['re'], 'normalize[%d]' % i)
            self.normalize.append((c['re'], e.get('sub', ''), int(e.get('repeat', 1))))
        self.skip = [self._frame_rule(e, 'skip[%d]' % i) for i, e in enumerate(data.get('skip', []))]
        self.stop_after = [self._frame_rule(e, 'stop_after[%d]' % i)
                           for i, e in enumerate(data.get('stop_after', []))]
        self.stop_before = [self._frame_rule(e, 'stop_before[%d]' % i)
                            for i, e in enumerate(data.get('stop_before', []))]
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
        return r

    @classmethod
    def load(cls, path=None, top=None):
        path = path or DEFAULT_RULES
        try:
            with open(path) as f:
                data = json.load(f)
        except (OSError, ValueError) as e:
            raise RulesError('cannot load rules %s: %s' % (path, e))
        return cls(data, top)

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

    def signal_class(self, rep):
        sig = rep.signal or 'UNKNOWN'
        for c, cls in self.classes:
            if 'signal' in c and not c['signal'].search(sig):
                continue
            if 'message' in c and not (rep.message and c['message'].search(rep.message)):
                continue
            return cls
        return sig

    def meaningful(self, frames, limit):
        """Names of the first `limit` root-cause frames."""
        out = []
        for fr in frames:
            fn = self.norm_function(fr.function)
            if out and any(self._matches(r, fr, fn) for r in self.stop_before):
                break
            if any(self._matches(r, fr, fn) for r in self.skip):
                continue
            out.append(self.frame_name(fr))
            if len(out) >= limit:
                break
            if any(self._matches(r, fr, fn) for r in self.stop_after):
                break
        return out

    def title(self, rep, limit=None):
        limit = limit or self.top
        names = self.meaningful(rep.frames, limit)
        sig = self.signal_class(rep)
        if not names:
            return self.fmt_none.format(signal=sig), []
        return self.fmt.format(signal=sig, frames=self.sep.join(names)), names

    def signature(self, title):
        return hashlib.sha256(title.encode('utf-8', 'replace')).hexdigest()[:self.digits]

    def suppression(self, title):
        for rx, why in self.suppressions:
            if rx.search(title):
                return why
        return None


def describe(rep, rules):
    """Fill rep.extra with title/alt/frame/signature; return the title."""
    title, names = rules.title(rep)
    alt = None
    if rules.alt_top < rules.top:
        a, _ = rules.title(rep, rules.alt_top)
        if a != title:
            alt = a
    if not names:
        rep.flag('corrupted')
    rep.extra['title'] = title
    rep.extra['alt'] = alt
    rep.extra['frame'] = names[0] if names else None
    rep.extra['signature'] = rules.signature(title)
    blame.assign(rep, rules)        # rep.extra['module']: who faulted, VM or caller
    sup = rules.suppression(title)
    if sup:
        rep.extra['suppressed'] = sup
    return title
