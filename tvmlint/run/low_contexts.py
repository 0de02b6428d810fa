"""Which waiting findings a context written below the default opt_level can reach.

A Sequential whose passes all sit at or below the default level (2) skips one
only under a context that sets a lower level as a literal, such as
`PassContext(opt_level=0)`: at 0.27 that is every relax wrapper and most
Sequentials tests build. Two costs follow from it. A file that runs one is
analysed, though only such a context can give it a finding; and when the run
sits in a function, its finding waits for the contexts the function's callers
give it (tvmlint.analysis.project), and the runner's later rounds analyse every file
that may call it, then their callers. On apache/tvm's tree that was a fifth of
a run, and found nothing: three test files write `opt_level=0`, and nothing
they call reaches those functions.

This module answers from the files' text whether a low context can reach a
file or a waiting finding at all. It errs only one way: when it says no, no
context that `tvmlint.analysis.project.Project.reach` can bring there is below the level
needed. How a context reaches a function in the project step:

- a file writes it and calls the function under it, in a `with` (`writers`,
  from what each file writes: `lowest_written_level`);
- or a file enters what a helper of another file returns (`with helper():`),
  which the helper's file wrote: the file names the helper's module;
- or a function is called, by name, from a function that is itself reached.

So a context below level `below` can only start in the files that write one,
or that enter a context and name the module of one that does (`sources`), and
run only the code those files name, directly or through the files they name
(`exposed`). A file left out for want of such a context is analysed when it is
exposed. A waiting finding is reachable when:

- a context on its way, through the calls the analysed files make, is already
  that low, or enters what a helper returns in a file that is a source;
- or some exposed file the analysis did not see whole may name a function it
  waits on (the word test `tvmlint.run.runner` uses to pick the files of a round);
- or its own file was analysed in part and is exposed (its blanked
  definitions may call it).
"""

from __future__ import annotations

import ast
import functools
import hashlib
import re
from typing import (
    Callable,
    Dict,
    FrozenSet,
    Iterable,
    List,
    Optional,
    Sequence,
    Set,
    Tuple,
)

from tvmlint.analysis.written_levels import literal_levels, merge
from tvmlint.base.source import read_file
from tvmlint.knowledge.target import default_levels
from tvmlint.run.words import Words


class Factories:
    """What makes a context, as the text shows it: each factory's last name, and the
    position its opt_level takes when given without a keyword (None: never; -1: any,
    when two releases of the run disagree)."""

    def __init__(self, positions: Dict[str, Optional[int]], lowest_default: int, highest_default: int):
        self.positions = positions
        # the lowest and highest level a context has when none is written, over the run's releases
        self.lowest_default = lowest_default
        self.highest_default = highest_default
        self.ceiling = highest_default  # the level below which what a file writes is recorded
        self._screens: Dict[int, "re.Pattern[str]"] = {}

    @classmethod
    def of(cls, knowledges: Iterable) -> "Factories":
        positions: Dict[str, Optional[int]] = {}
        defaults = []
        for knowledge in knowledges:
            defaults.extend(default_levels(knowledge))
            for api, factory in knowledge.context_factories.items():
                last = api.rsplit(".", 1)[-1]
                at = factory.params.index("opt_level") if "opt_level" in factory.params else None
                positions[last] = merge(positions[last], at) if last in positions else at
        return cls(positions, min(defaults, default=0), max(defaults, default=0))

    def screen(self, below: int) -> "re.Pattern[str]":
        """What sends a module to the parser: a literal that may be below `below` after
        `opt_level=` or after a factory's parenthesis, an alias of a factory, or a factory
        whose level may come at another place than first."""
        pattern = self._screens.get(below)
        if pattern is None:
            pattern = self._screens[below] = _screen(self.positions, below)
        return pattern


# what may stand between the parts of a call as the parser reads it: space, a line
# continuation, a comment, an opening parenthesis (`opt_level=(0)`). A comment runs to its line's
# end, newline included: one way to match it, so a block of commented-out code full of `#` and
# spaces cannot send the search through every way of splitting it (it hung on a real script)
_GAP = r"(?:\s|\\\r?\n|#[^\r\n]*[\r\n]|\()*"


def lowest_written_level(text: str, factories: Factories, below: int, tree: Optional[ast.Module] = None) -> Optional[int]:
    """The lowest opt_level below `below` that a module may give a context as an integer
    literal, the way `tvmlint.analysis.module` reads one (`PassContext(opt_level=0)`,
    `PassContext(0)`, through an import alias or a name assigned the factory); None if none.
    `tree`: the stdlib tree of `text`, when the caller has it.

    The text decides for most modules: the factory's name must be in it (an alias is made
    from it), and a literal that low must follow `opt_level=` or the factory's own
    parenthesis. The others are parsed, and their calls read."""
    if not any(name in text for name in factories.positions):
        return None
    if factories.lowest_default < below:
        return factories.lowest_default  # a factory called with no level at all gives a low one
    if factories.screen(below).search(text) is None:
        return None
    if tree is None:
        from tvmlint.analysis.used_names import (
            parse,  # the code's own warnings are not the run's
        )

        tree, _ = parse(text)
        if tree is None:
            return None  # a module that does not parse is not analysed: it creates no context
    return _lowest_call_level(tree, factories, below)


@functools.lru_cache(maxsize=None)
def factories_at(knowledge) -> Factories:
    """The factories of one release, with every release's highest default level as the ceiling
    under which a worker records what a file writes (`Checked.low_level`): a run may ask about
    any level up to it, whatever release each file is checked against."""
    from tvmlint.knowledge.target import highest_default_level

    factories = Factories.of([knowledge])
    factories.ceiling = max(factories.highest_default, highest_default_level())
    return factories


def _screen(positions: Dict[str, Optional[int]], below: int) -> "re.Pattern[str]":
    # an integer literal whose value may be below `below`: a minus sign, or a first digit
    # below it (`0x10` begins with 0: more modules, never fewer)
    low = r"(?:-|[0-%d])" % min(below - 1, 9) if below > 0 else r"-"
    first = "|".join(re.escape(n) for n, at in positions.items() if at == 0)
    elsewhere = "|".join(re.escape(n) for n, at in positions.items() if at not in (0, None))
    every = "|".join(re.escape(n) for n in positions)
    # a level may also be a name bound once to a literal (`OPT = 0`, then `opt_level=OPT`):
    # such a module is parsed, and `literal_levels` reads what the name is assigned
    name = r"[A-Za-z_]\w*"
    alternatives = [r"\bopt_level" + _GAP + "=" + _GAP + r"(?:" + low + "|" + name + ")"]
    if first:
        alternatives.append(r"\b(?:" + first + r")" + _GAP + r"\(" + _GAP + low)
        alternatives.append(r"\b(?:" + first + r")" + _GAP + r"\(" + _GAP + name + _GAP + r"[,)]")
    if elsewhere:
        alternatives.append(r"\b(?:" + elsewhere + r")" + _GAP + r"\(")
    # `import ... PassContext as PC`, `PC = tvm.transform.PassContext` (not a call of it, nor
    # an attribute of it such as `.current`)
    alternatives.append(r"\b(?:" + every + r")\s+as\b")
    alternatives.append(r"=[\w.\s\\]*\b(?:" + every + r")\b(?!" + _GAP + r"[(.])")
    return re.compile("|".join(alternatives))


def _lowest_call_level(tree: ast.Module, factories: Factories, below: int) -> Optional[int]:
    low = [level for level in literal_levels(tree, factories.positions) if level < below]
    return min(low) if low else None


class LowContexts:
    """For one run's files: which waiting findings a low context can reach (see the module)."""

    def __init__(self, paths: Sequence[str], modules: Sequence[str], factories: Factories, written: Dict[int, int],
                 read: Callable[[str], bytes] = read_file, words: Optional[Words] = None):
        self.paths = paths
        self.read = read  # the run's reader: an editor's buffer in place of its file
        self.words = words if words is not None else Words(read)  # the files' words, through that reader
        self.modules = modules
        self.factories = factories
        # file -> the lowest level it writes for a context (`lowest_written_level`, worked
        # out by the first round's workers below every release's default)
        self.written = written
        self._found: Dict[int, Tuple[FrozenSet[int], FrozenSet[int]]] = {}
        # file -> the modules it may name (ids of `_members`, sorted) and whether it enters a
        # context. Kept for every file that names a writer: by module, not by file (a module
        # name can stand for many files: copies of a package), and one tuple for every file
        # that names the same modules, so that it does not grow with the square of the tree.
        self._named: Dict[int, Tuple[Tuple[int, ...], bool]] = {}
        self._shared: Dict[Tuple[Tuple[int, ...], bool], Tuple[Tuple[int, ...], bool]] = {}
        self._by_last: Optional[Dict[bytes, List[Tuple[Tuple[bytes, ...], int]]]] = None
        self._unusual: Tuple[int, ...] = ()
        # module id -> the run's files of that module name; file -> its module id
        self._members: List[Tuple[int, ...]] = []
        self._module_of: List[int] = []
        self._ids: Dict[str, int] = {}
        self._module_names: List[str] = []
        self._modules_digest = ""

    def _words(self, index: int) -> Optional[Set[bytes]]:
        """A file's words and its module name's parts; None when it cannot be read (as it was
        when the cheap stage tried: its result says why)."""
        words = self.words.of(self.paths[index])
        if words is not None:
            words.update(part.encode() for part in self.modules[index].split("."))
        return words

    def _names(self, index: int) -> Tuple[Tuple[int, ...], bool]:
        """The modules (ids of `_members`) a file may name, and whether it may enter a context
        (a `with`, or a call of `__enter__`); worked out once, whatever level is asked about."""
        found = self._named.get(index)
        if found is None:
            if self._by_last is None:
                self._modules()
            # kept in the cache by module name (ids are the run's own), with the run's module
            # names that the answer depends on: another set of them asks again, and replaces it
            path, question = self.paths[index], f"names {self.modules[index]}"
            answer = self.words.fact(path, question, lambda: self._names_in(index))
            if answer is not None and answer[0] != self._modules_digest:
                answer = self._names_in(index)
                self.words.replace_fact(path, question, answer)
            if answer is None:
                found = ((), False)
            else:
                found = (tuple(sorted(self._ids[name] for name in answer[1])), answer[2])
            found = self._named[index] = self._shared.setdefault(found, found)
        return found

    def _names_in(self, index: int) -> Optional[Tuple[str, Tuple[str, ...], bool]]:
        """The digest of the run's module names, the names of those a file may name, and
        whether it may enter a context."""
        words = self._words(index)
        if words is None:
            return None
        named = tuple(self._module_names[known] for known in sorted(self._named_by(words)))
        return self._modules_digest, named, b"with" in words or b"__enter__" in words

    def _modules(self) -> None:
        """Every module name of the run once, with its files (names may repeat), and each
        module under the last part of its name."""
        ids: Dict[str, int] = {}
        members: List[List[int]] = []
        for index, module in enumerate(self.modules):
            known = ids.get(module)
            if known is None:
                known = ids[module] = len(members)
                members.append([])
            members[known].append(index)
            self._module_of.append(known)
        self._members = [tuple(files) for files in members]
        self._ids = ids
        self._module_names = list(ids)  # by id: ids are given in order
        # what a file names depends on the run's module names too: a cached answer says which
        self._modules_digest = hashlib.blake2b("\n".join(sorted(ids)).encode(), digest_size=16).hexdigest()
        self._by_last = {}
        unusual = []
        for module, known in ids.items():
            if not module.isascii():
                unusual.append(known)  # its encoded name need not be its bytes in another file
                continue
            parts = tuple(part.encode() for part in module.split("."))
            self._by_last.setdefault(parts[-1], []).append((parts, known))
        self._unusual = tuple(unusual)

    def _named_by(self, words: Set[bytes]) -> Set[int]:
        if self._by_last is None:
            self._modules()
        by_last = self._by_last
        found = {
            known
            for last in words.intersection(by_last)
            for parts, known in by_last[last]
            if all(part in words for part in parts)
        }
        found.update(self._unusual)
        return found

    def sources_and_exposed(self, below: int) -> Tuple[FrozenSet[int], FrozenSet[int]]:
        """The files a context below `below` can start in, and those whose code it can run."""
        known = self._found.get(below)
        if known is not None:
            return known
        writers = {index for index, level in self.written.items() if level < below}
        sources = set(writers)
        if writers:
            if self._by_last is None:
                self._modules()
            written = {self._module_of[index] for index in writers}
            # files that may name a writer's module and enter a context (a `with`, or a call of
            # `__enter__`): they may enter what its helpers return
            lasts = {self.modules[index].rsplit(".", 1)[-1].encode() for index in writers}
            for index in range(len(self.paths)):
                if index in sources:
                    continue
                if index not in self._named and not self.words.holds_any(self.paths[index], lasts):
                    continue
                named, enters = self._names(index)
                if enters and not written.isdisjoint(named):
                    sources.add(index)
        exposed = set(sources)
        todo = list(sources)
        reached: Set[int] = set()  # modules whose files are exposed already
        while todo:
            for module in self._names(todo.pop())[0]:
                if module in reached:
                    continue
                reached.add(module)
                for named in self._members[module]:
                    if named not in exposed:
                        exposed.add(named)
                        todo.append(named)
        found = self._found[below] = (frozenset(sources), frozenset(exposed))
        return found

    def naming(self, candidates: Iterable[int], names: Iterable[str]) -> Set[str]:
        """Which of `names` (project functions) some file of `candidates` may name: every part
        of the name is a word of its text or a part of its module name."""
        by_last: Dict[bytes, List[Tuple[str, Tuple[bytes, ...]]]] = {}
        found: Set[str] = set()
        for name in names:
            if not name.isascii():
                found.add(name)  # its letters may be encoded otherwise: counted as named
                continue
            parts = tuple(part.encode() for part in name.split("."))
            by_last.setdefault(parts[-1], []).append((name, parts))
        if not by_last:
            return found
        for index in candidates:
            if not self.words.holds_any(self.paths[index], by_last):
                continue
            words = self._words(index)
            if words is None:
                continue
            for last in words.intersection(by_last):
                for name, parts in by_last[last]:
                    if all(part in words for part in parts):
                        found.add(name)
        return found

    def reachable(self, requests: Sequence[Tuple[int, int, Set[str], Set[int], bool, bool]],
                  seen_whole: Sequence[bool]) -> List[bool]:
        """For each waiting finding (below, home, names, entering, known_low, partial): whether a
        context below `below` can reach that finding of file `home`. It waits on the callers of
        `names`, as far as the analysed files' calls lead; `entering`: the files on the way whose
        `with` enters what a helper returns; `known_low`: a context on the way is already that
        low; `partial`: `home` was analysed with definitions blanked. `seen_whole[i]`: file i was
        analysed whole, so all its calls are known and the word test is not asked of it."""
        answers: List[Optional[bool]] = []
        unsure: Dict[int, Set[str]] = {}  # below -> names to look for in the exposed files
        for below, home, names, entering, known_low, partial in requests:
            sources, exposed = self.sources_and_exposed(below)
            if known_low or not sources.isdisjoint(entering) or (partial and home in exposed):
                answers.append(True)
            else:
                answers.append(None)
                unsure.setdefault(below, set()).update(names)
        named = {
            below: self.naming([index for index in self.sources_and_exposed(below)[1] if not seen_whole[index]], names)
            for below, names in unsure.items()
        }
        return [
            answer if answer is not None else not named[request[0]].isdisjoint(request[2])
            for answer, request in zip(answers, requests)
        ]
