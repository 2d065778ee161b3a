// What findPublicNames() lists for the CLI's project view: public parameters named
// `async`/`await`, and the calls that may reach another module's.
#include <catch2/catch.hpp>

#include <map>

#include "asyncfix/public_names.h"
#include "project/reexports.h"

using namespace asyncfix;

namespace {

KeywordCall call(std::string callee, std::string method, std::string keyword, bool local = false) {
  return {std::move(callee), std::move(method), std::move(keyword), local};
}

} // namespace

TEST_CASE("mayHavePublicNames: parameters and keyword arguments, not the keywords", "[project]") {
  CHECK(mayHavePublicNames("def f(url, async=False):\n    pass\n"));
  CHECK(mayHavePublicNames("f(async = True)\n"));
  CHECK(mayHavePublicNames("def f(a, async):\n    pass\n"));
  CHECK(mayHavePublicNames("def f(a, await, b):\n    pass\n"));
  CHECK(mayHavePublicNames("def f(async: bool):\n    pass\n"));
  CHECK_FALSE(mayHavePublicNames("async def f():\n    await g()\n    async with x:\n        pass\n"));
  CHECK_FALSE(mayHavePublicNames("x = {'async': 1}\nis_async=1\nasync_=2\n"));
  CHECK_FALSE(mayHavePublicNames(""));
  // Quoted legacy code is no parameter.
  CHECK_FALSE(
      mayHavePublicNames("# Old code wrote `x.cuda(async=True)`\ns = 'f(async=1)'\n\"\"\"def f(async=1)\"\"\"\n"));
  CHECK(mayHavePublicNames("def f(a,\n      async\n      ):\n    pass\n"));
  CHECK(mayHavePublicNames("f(a, async  # the old name\n  =1)\n"));
}

TEST_CASE("findPublicNames: the parameters callers in other modules can pass by keyword", "[project]") {
  const PublicNames names = findPublicNames("class Kfac(object):\n"
                                            "    def __init__(self, lr, async=False):\n"
                                            "        pass\n"
                                            "    def step(self, await=None, async=None):\n"
                                            "        def inner(async=1):\n"
                                            "            pass\n"
                                            "    def _private(self, async=1):\n"
                                            "        pass\n"
                                            "    def __call__(self, async=1):\n"
                                            "        pass\n"
                                            "def fetch(url, async=False):\n"
                                            "    pass\n"
                                            "def _helper(async=False):\n"
                                            "    pass\n"
                                            "class _Hidden:\n"
                                            "    def __init__(self, async=False):\n"
                                            "        pass\n"
                                            "handler = lambda async=False: async\n");
  const std::vector<PublicParameter> expected = {
      {"Kfac", "async", true},
      {"Kfac.step", "async", false},
      {"fetch", "async", false},
      {"Kfac.step", "await", false},
  };
  CHECK(names.parameters == expected);
  CHECK(names.calls.empty());
}

TEST_CASE("findPublicNames: calls, with their callees resolved through the imports", "[project]") {
  const PublicNames names = findPublicNames("from pkg.kfac import Kfac\n"
                                            "from .util import fetch\n"
                                            "from . import kfac\n"
                                            "import pkg.kfac as k\n"
                                            "opt = Kfac(0.1, async=True)\n"
                                            "opt.step(async=False)\n"
                                            "fetch(u, async=True)\n"
                                            "kfac.Kfac(1, async=True)\n"
                                            "k.Kfac(1, await=True)\n"
                                            "def build(mod, **kw):\n"
                                            "    Kfac(0.1, **kw)\n"
                                            "    return mod.Kfac(0.1, async=True)\n"
                                            "def local(async=1):\n"
                                            "    pass\n"
                                            "local(async=2)\n"
                                            "x = 2 ** 3\n"
                                            "s = 'Kfac(**kw)'\n");
  const std::vector<KeywordCall> expected = {
      call("pkg.kfac.Kfac", "Kfac", "async"),
      call("pkg.kfac.Kfac.step", "step", "async"),
      call(".util.fetch", "fetch", "async"),
      call(".kfac.Kfac", "Kfac", "async"),
      call("pkg.kfac.Kfac", "Kfac", "await"),
      call("pkg.kfac.Kfac", "Kfac", ""),
      call("", "Kfac", "async"),
      call("", "local", "async", true),
  };
  CHECK(names.calls == expected);
}

TEST_CASE("resolveRelative: leading dots climb the package", "[project]") {
  CHECK(resolveRelative(".kfac.Kfac", "pkg") == "pkg.kfac.Kfac");
  CHECK(resolveRelative(".kfac", "pkg.sub") == "pkg.sub.kfac");
  CHECK(resolveRelative("..util.f", "pkg.sub") == "pkg.util.f");
  CHECK(resolveRelative(".x", "") == "x");
  CHECK(resolveRelative("...x", "pkg") == std::nullopt);
  CHECK(resolveRelative("..x", "") == std::nullopt);
}

namespace {

NameReference ref(NameReference::Kind kind, std::string path, std::string name, std::string written,
                  std::uint32_t line) {
  return {kind, std::move(path), std::move(name), std::move(written), line};
}

} // namespace

TEST_CASE("mayHavePublicNames: names and attributes other modules may use", "[project]") {
  CHECK(mayHavePublicNames("def async(x):\n    pass\n"));
  CHECK(mayHavePublicNames("class await:\n    pass\n"));
  CHECK(mayHavePublicNames("from pkg.m import async\n"));
  CHECK(mayHavePublicNames("y = m.async.x\n"));
  CHECK(mayHavePublicNames("self.async = True\n"));
  CHECK_FALSE(mayHavePublicNames("async def f():\n    return await g()\n"));
}

TEST_CASE("findPublicNames: module-level names and class attributes the module defines", "[project]") {
  const PublicNames names = findPublicNames("from lib import async\n" // another module's
                                            "import other as await\n" // an alias is the module's own
                                            "def f():\n"
                                            "    async = 1\n" // a local
                                            "    return async\n"
                                            "class C(object):\n"
                                            "    async = False\n" // class-level
                                            "    def __init__(self):\n"
                                            "        self.await = 1\n" // assigned on self
                                            "    def run(self):\n"
                                            "        return self.other.async\n"
                                            "    class Inner:\n"
                                            "        def await(self):\n" // a method
                                            "            pass\n"
                                            "def g():\n"
                                            "    global async2\n");
  CHECK(names.globals == std::vector<std::string>{"await"});
  const std::vector<std::pair<std::string, std::string>> attributes = {
      {"C", "async"}, {"C.Inner", "await"}, {"C", "await"}};
  CHECK(names.attributes == attributes);
  CHECK(names.classes == std::vector<std::string>{"C"});

  const PublicNames defs = findPublicNames("async = 1\n"
                                           "def await(x):\n"
                                           "    return x\n"
                                           "def h():\n"
                                           "    global async\n"
                                           "    async = 2\n");
  CHECK(defs.globals == std::vector<std::string>{"async", "await"});
  CHECK(defs.attributes.empty());
}

TEST_CASE("findPublicNames: uses that may reach another module's names", "[project]") {
  using K = NameReference::Kind;
  const PublicNames names = findPublicNames("from pkg.m import async\n"
                                            "from pkg.m import await as w\n"
                                            "from .m import C\n"
                                            "from . import m\n"
                                            "import pkg.m\n"
                                            "import pkg.n as n\n"
                                            "x = pkg.m.async + m.await + n.async\n"
                                            "c = C()\n"
                                            "y = c.async + C.await\n"
                                            "class D(C):\n"
                                            "    def go(self):\n"
                                            "        return self.async\n"
                                            "def f(o):\n"
                                            "    return o.async, D().await\n"
                                            "print(await)\n"
                                            "from . import async\n"
                                            "s = 'o.async'\n");
  const std::vector<NameReference> expected = {
      ref(K::Path, "pkg.m.async", "async", "from pkg.m import async", 1),
      ref(K::Path, "pkg.m.await", "await", "from pkg.m import await", 2),
      ref(K::Path, "pkg.m.async", "async", "pkg.m.async", 7),
      ref(K::Path, ".m.await", "await", "m.await", 7),
      ref(K::Path, "pkg.n.async", "async", "n.async", 7),
      ref(K::Instance, ".m.C", "async", "c.async", 9),
      ref(K::Path, ".m.C.await", "await", "C.await", 9),
      ref(K::Own, "", "async", "self.async", 12),
      ref(K::Unresolved, "", "async", "o.async", 14),
      ref(K::Own, "", "await", "D().await", 14),
      ref(K::Unresolved, "", "await", "await", 15),
      ref(K::Path, ".async", "async", "from . import async", 16),
  };
  CHECK(names.references == expected);
  CHECK(names.globals.empty());
  CHECK(names.attributes.empty());
}

TEST_CASE("findPublicNames: the other identifiers a rename could collide with", "[project]") {
  const PublicNames names = findPublicNames("async = 1\n"
                                            "async_ = 2\n"
                                            "def f(is_await=False):\n"
                                            "    return g(await_=1).async_mode\n"
                                            "s = 'async_x'  # async_y\n"
                                            "print(async_)\n");
  CHECK(names.words == std::vector<std::string>{"async_", "async_mode", "is_await", "await_"});
}

TEST_CASE("findPublicNames: strings that spell the names, and `__all__`", "[project]") {
  const PublicNames names = findPublicNames("__all__ = ['async', 'x']\n"
                                            "async = 1\n"
                                            "s = 'await_'  # 'await'\n"
                                            "t = getattr(o, \"await\")\n");
  CHECK(names.quoted == std::vector<std::string>{"async", "await"});
  CHECK(names.all);
  const PublicNames plain = findPublicNames("async = 1\ndef f():\n    __all__ = 2\ns = 'async_'\n");
  CHECK(plain.quoted.empty());
  CHECK_FALSE(plain.all);
}

TEST_CASE("findPublicNames: only `self` and the file's own classes and instances are its own", "[project]") {
  using K = NameReference::Kind;
  const PublicNames names = findPublicNames("import somelib\n"
                                            "class C(object):\n"
                                            "    pass\n"
                                            "def make():\n"
                                            "    return somelib.thing()\n"
                                            "c = C()\n"
                                            "d = c\n"
                                            "o = make()\n"
                                            "x = (c.async, d.async, C.async, C().async)\n"
                                            "y = (o.async, make().async, make.async, c().async)\n");
  std::vector<K> kinds;
  for (const NameReference &r : names.references) kinds.push_back(r.kind);
  CHECK(kinds ==
        std::vector<K>{K::Own, K::Own, K::Own, K::Own, K::Unresolved, K::Unresolved, K::Unresolved, K::Unresolved});
}

TEST_CASE("ModuleNames: what a module's top level hands on to its importers", "[project]") {
  using K = ModuleBinding::Kind;
  const ModuleNames init("from .impl import helper\n"
                         "from pkg.api import fetch as get, Kfac\n"
                         "from . import impl\n"
                         "import pkg.tools\n"
                         "def own(x):\n    return x\n"
                         "class Own:\n    pass\n"
                         "alias = impl.helper\n"
                         "try:\n    from .fast import speed\nexcept ImportError:\n    speed = None\n"
                         "def setup():\n    global late\n    late = 1\n"
                         "if True:\n    from .star import *\n"
                         "from json import *\n");
  const auto kind = [&](std::string_view name) { return init.lookup(name).kind; };
  CHECK(init.lookup("helper").path == ".impl.helper");
  CHECK(init.lookup("get").path == "pkg.api.fetch");
  CHECK(init.lookup("Kfac").path == "pkg.api.Kfac");
  CHECK(init.lookup("impl").path == ".impl");
  CHECK(init.lookup("pkg").path == "pkg"); // `import pkg.tools` binds the package
  CHECK(kind("helper") == K::Imported);
  CHECK(kind("own") == K::Defined);
  CHECK(kind("Own") == K::Defined);
  CHECK(kind("alias") == K::Uncertain); // an assignment may hold another module's function
  CHECK(init.lookup("speed").why == "binds `speed` more than once");
  CHECK(init.lookup("late").why == "assigns `late` in a function");
  CHECK(kind("fetch") == K::Unbound); // imported under another name
  CHECK(kind("missing") == K::Unbound);
  CHECK(init.stars() == std::vector<std::string>{".star", "json"});
  CHECK_FALSE(init.all());
  CHECK_FALSE(init.allComputed());

  const ModuleNames listed("__all__ = ['helper', \"Kfac\"]\n");
  REQUIRE(listed.all());
  CHECK(*listed.all() == std::vector<std::string>{"helper", "Kfac"});
  for (const char *computed : {"__all__ = [n for n in dir()]\n", "__all__ = ['a']\n__all__ += ['b']\n",
                               "__all__ = ['a', NAME]\n", "__all__ = ['a']\n__all__.append('b')\n"}) {
    const ModuleNames m(computed);
    CHECK_FALSE(m.all());
    CHECK(m.allComputed());
  }
}

TEST_CASE("Reexports: a path through the run's modules to what it names", "[project]") {
  const std::map<std::string, std::string> files{
      {"pkg/__init__.py", "from .api import h as helper, Kfac\nfrom .stars import *\n"},
      {"weird.py", "from pkg.odd import *\n"},
      {"pkg/api.py", "from pkg.impl import helper as h\nfrom pkg.impl import *\n"},
      {"pkg/impl.py", "def helper(x, async=1):\n    return x\nclass Kfac:\n    pass\ndef _hidden():\n    pass\n"},
      {"pkg/stars.py", "from .impl import helper as listed, _hidden\n__all__ = ['listed']\n"},
      {"pkg/odd.py", "__all__ = [n for n in dir()]\n"},
      {"loop/__init__.py", "from .b import f\n"},
      {"loop/b.py", "from loop import f\n"},
      {"tools.py", "from pkg import helper as run\ntry:\n    from pkg import Kfac as K\nexcept ImportError:\n"
                   "    K = None\n"},
  };
  std::map<std::string, Reexports::Module, std::less<>> modules{
      {"pkg", {"pkg/__init__.py", "pkg"}},
      {"pkg.api", {"pkg/api.py", "pkg"}},
      {"pkg.impl", {"pkg/impl.py", "pkg"}},
      {"pkg.stars", {"pkg/stars.py", "pkg"}},
      {"pkg.odd", {"pkg/odd.py", "pkg"}},
      {"loop", {"loop/__init__.py", "loop"}},
      {"loop.b", {"loop/b.py", "loop"}},
      {"tools", {"tools.py", ""}},
      {"weird", {"weird.py", ""}},
      {"gone", {"gone.py", ""}},
      {"twice", {"", ""}},
  };
  int reads = 0;
  Reexports r(std::move(modules), [&](const std::string &file, std::string &why) -> std::optional<ProjectSource> {
    ++reads;
    const auto it = files.find(file);
    if (it == files.end()) {
      why = "cannot be read: no such file";
      return std::nullopt;
    }
    return ProjectSource{it->second, {}};
  });
  const auto to = [&](const std::string &path) {
    const Reexports::Target t = r.resolve(path);
    return t.unresolved.empty() ? t.path : "? " + t.unresolved;
  };
  CHECK(to("pkg.impl.helper") == "pkg.impl.helper");
  CHECK(to("pkg.helper") == "pkg.impl.helper");       // an alias, then an import
  CHECK(to("tools.run") == "pkg.impl.helper");        // a chain over three modules
  CHECK(to("pkg.Kfac.step") == "pkg.impl.Kfac.step"); // a star import of the public names
  CHECK(to("pkg.listed") == "pkg.impl.helper");       // a star import of `__all__`'s names
  CHECK(to("pkg.impl") == "pkg.impl");                // a module
  CHECK(to("numpy.array") == "numpy.array");          // no module of the run
  CHECK(to("pkg.api.h") == "pkg.impl.helper");
  CHECK(to("pkg._hidden") == "pkg._hidden"); // not in `__all__`, not public: not handed on
  CHECK(to("tools.K") == "? `tools.py` binds `K` more than once");
  CHECK(to("loop.f").starts_with("? the imports that hand on `loop."));
  CHECK(to("weird.helper") == "? `weird.py` star-imports `pkg.odd`, and `pkg/odd.py` computes its `__all__`");
  CHECK(to("gone.f") == "? `gone.py` cannot be read: no such file");
  CHECK(to("twice.f") == "? two files of the run are the module `twice`");
  CHECK(r.holds("pkg"));
  CHECK(r.holds("tools"));
  CHECK_FALSE(r.holds("pk"));
  CHECK_FALSE(r.holds("numpy"));
  const int before = reads;
  CHECK(to("pkg.helper") == "pkg.impl.helper");
  CHECK(reads == before); // each file is read once
}
