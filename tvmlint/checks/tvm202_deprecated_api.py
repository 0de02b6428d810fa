"""TVM202 deprecated-api: API the target release still has but deprecates, with its replacement."""

from __future__ import annotations

from tvmlint.checks.api_usage import HistoryRule
from tvmlint.checks.rule import Case
from tvmlint.knowledge.api_history import DEPRECATED

RELAY = "import tvm\nfrom tvm import relay\n"


class DeprecatedApi(HistoryRule):
    status = DEPRECATED
    code = "TVM202"

    VALID = [
        # a `relay` the module binds itself is not the one a star import of a project module brings
        Case("from utils import *\nimport tvm\nrelay = load_plugin()\nwith relay.build_config(opt_level=3):\n    pass\n",
             target="0.8"),
        # the normal API of its time
        Case(RELAY + "with relay.build_config(opt_level=3):\n    pass\n", target="0.6"),
        Case("from tvm.contrib import graph_runtime\n", target="0.7"),
        Case(RELAY + "x = relay.save_param_dict(params)\n", target="0.7"),
        Case("import nnvm.compiler\n", target="0.5"),
        # removed, not deprecated: TVM201's
        Case(RELAY + "with relay.build_config(opt_level=3):\n    pass\n", target="0.20"),
        Case("import nnvm\n", target="0.7"),
        # asnumpy before 0.8; in a module that imports MXNet (its NDArray has asnumpy too); another
        # library's function of that name; a module that does not use TVM
        Case("import tvm\nout = module.get_output(0).asnumpy()\n", target="0.7"),
        Case("import tvm\nimport mxnet as mx\nref = mx.nd.array(x).asnumpy()\n", target="0.8"),
        Case("import tvm\nimport cupy\nhost = cupy.asnumpy(x)\n", target="0.8"),
        Case("import numpy as np\nout = result.asnumpy()\n", target="0.8"),
        # inside the deprecated package's own tree: its modules and, for a package other than tvm, its tests
        Case("", files={"nnvm/__init__.py": "", "nnvm/compiler/__init__.py": "",
                        "nnvm/compiler/build_module.py": "from .._base import c_array\nimport nnvm.symbol\nx = nnvm.symbol.Variable('x')\n"},
             target="0.6"),
        Case("", files={"nnvm/tests/python/test_build.py": "import nnvm.compiler\ng = nnvm.compiler.build(net, 'llvm')\n"},
             target="0.6"),
        # the replacement itself
        Case(RELAY + "with tvm.transform.PassContext(opt_level=3):\n    pass\n", target="0.8"),
        # code written for several releases: the fallback import is deliberate
        Case("try:\n    from tvm.contrib import graph_executor\nexcept ImportError:\n"
             "    from tvm.contrib import graph_runtime as graph_executor\n", target="0.8"),
        # shadowed
        Case("def f(relay):\n    return relay.build_config(opt_level=3)\n", target="0.8"),
        # T.buffer_decl before its deprecation, and T.Buffer
        Case("from tvm.script import tir as T\nb = T.buffer_decl([1], dtype='float32')\n", target="0.11"),
        Case("from tvm.script import tir as T\nb = T.Buffer([1], dtype='float32')\n", target="0.12"),
        Case("from tvm.script import tirx as T\nb = T.Buffer([1], dtype='float32')\n", target="0.27"),
    ]

    INVALID = [
        # a use spelt from above the reported import is a line of its own to change (jaeriver/dl_model_converter)
        Case("import tvm\nfrom tvm.contrib import graph_runtime\nm = graph_runtime.create(g, lib, dev)\n"
             "m2 = tvm.contrib.graph_runtime.create(g, lib, dev)\n", target="0.8", count=2,
             fixed="import tvm\nfrom tvm.contrib import graph_executor as graph_runtime\nm = graph_runtime.create(g, lib, dev)\n"
             "m2 = tvm.contrib.graph_executor.create(g, lib, dev)\n"),
        # `relay` that `from utils import *` brings, where utils (the project's) imported it
        Case("from utils import *\nimport tvm\nwith relay.build_config(opt_level=3):\n    pass\n",
             files={"utils.py": "from tvm import relay\n"}, target="0.8", expect="`tvm.relay.build_config`"),
        Case("import nnvm.compiler\n", expect="deprecated since TVM 0.6", target="0.6"),
        Case(
            RELAY + "with relay.build_config(opt_level=3):\n    pass\n", expect="tvm.transform.PassContext",
            target="0.8", fixed=RELAY + "with tvm.transform.PassContext(opt_level=3):\n    pass\n",
        ),
        # `import tvm` is added when the module has none
        Case(
            "from tvm import relay\nwith relay.build_config(3, disabled_pass=['AlterOpLayout']):\n    pass\n",
            expect="deprecated since TVM 0.7", target="0.18",
            fixed="from tvm import relay\nimport tvm\nwith tvm.transform.PassContext(3, disabled_pass=['AlterOpLayout']):\n    pass\n",
        ),
        # arguments PassContext does not take in that place: reported, not rewritten
        Case(RELAY + "with relay.build_config(opt_level=3, trace=t):\n    pass\n", expect="deprecated", target="0.8"),
        Case(RELAY + "cfg = dict(opt_level=3)\nwith relay.build_config(**cfg):\n    pass\n", expect="deprecated", target="0.8"),
        Case(
            "from tvm.contrib import graph_runtime\nm = graph_runtime.create(graph, lib, dev)\n",
            expect="tvm.contrib.graph_executor", target="0.8",
            fixed="from tvm.contrib import graph_executor as graph_runtime\nm = graph_runtime.create(graph, lib, dev)\n",
        ),
        Case(
            "import tvm.contrib.graph_runtime as gr\n", expect="graph_executor", target="0.19",
            fixed="import tvm.contrib.graph_executor as gr\n",
        ),
        Case(
            "import tvm\nm = tvm.contrib.graph_runtime.GraphModule(lib['default'](dev))\n", expect="graph_executor",
            target="0.12", fixed="import tvm\nm = tvm.contrib.graph_executor.GraphModule(lib['default'](dev))\n",
        ),
        # the new module reached through the 0.8 shim that imports it (Dennis-Johnson/TVM-M1
        # metal_sanity_check.py): the use is reported, and rewritten to the new module whole
        Case(
            "import tvm\nm = tvm.contrib.graph_runtime.graph_executor.GraphModule(lib['default'](dev))\n",
            expect="in favour of `tvm.contrib.graph_executor.GraphModule`", detail="directly", target="0.12",
            fixed="import tvm\nm = tvm.contrib.graph_executor.GraphModule(lib['default'](dev))\n",
        ),
        Case(
            "from tvm.relay import save_param_dict\nblob = save_param_dict(params)\n",
            expect="tvm.runtime.save_param_dict", target="0.8",
            fixed="from tvm.runtime import save_param_dict\nblob = save_param_dict(params)\n",
        ),
        Case(
            RELAY + "blob = relay.save_param_dict(params)\n", expect="deprecated since TVM 0.8", target="0.19",
            fixed=RELAY + "blob = tvm.runtime.save_param_dict(params)\n",
        ),
        # a try that does not handle ImportError is no fallback
        Case("try:\n    from tvm.contrib import graph_runtime\nexcept ValueError:\n    pass\n", expect="graph_executor", target="0.8"),
        Case("import tvm\ndev = tvm.gpu(0)\n", expect="tvm.cuda", target="0.8", fixed="import tvm\ndev = tvm.cuda(0)\n"),
        # every use of an entry is reported where it stands (as ruff's NPY201), each with its fix
        Case("import tvm\na = tvm.gpu(0)\nb = tvm.gpu(1)\n", expect="tvm.cuda", target="0.8", count=2,
             fixed="import tvm\na = tvm.cuda(0)\nb = tvm.cuda(1)\n"),
        # a method of TVM's objects, on a receiver of any shape, in a module that uses TVM
        Case("import tvm\nout = module.get_output(0).asnumpy()\ny = tvm.nd.array(x).asnumpy()\n", target="0.8", count=2,
             expect="`NDArray.asnumpy()` is deprecated since TVM 0.8", fixed="import tvm\nout = module.get_output(0).numpy()\n"
             "y = tvm.nd.array(x).numpy()\n"),
        # error handling is no version guard: `except Exception` around a use
        Case("import tvm\ntry:\n    out = result.asnumpy()\nexcept Exception as e:\n    print(e)\n", target="0.8",
             expect="`NDArray.asnumpy()` is deprecated"),
        # tvmc (v0.12-v0.18) still parsed Relay text through the deprecated tvm.parser
        Case("from tvm import parser\nir_mod = parser.fromtext(text)\n", expect="tvm.relay.fromtext", target="0.12"),
        # TVMScript in TVM's own tests (v0.12-v0.18)
        Case("from tvm.script import tir as T\nb = T.buffer_decl([T.int64(768)], dtype='int8', data=x.data)\n",
             detail="T.Buffer", target="0.18"),
        Case("from tvm.script import tirx as T\nn = T.var('int32')\n", expect="deprecated since TVM 0.24", target="0.27"),
    ]
