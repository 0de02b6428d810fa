"""TVM202 deprecated-api: API the target release still has but deprecates, with its replacement."""

from __future__ import annotations

from tvmlint.checks.api_usage import HistoryRule
from tvmlint.checks.rule import Invalid, Valid
from tvmlint.knowledge.api_history import DEPRECATED

RELAY = "import tvm\nfrom tvm import relay\n"


class DeprecatedApi(HistoryRule):
    status = DEPRECATED
    code = "TVM202"

    VALID = [
        # a `relay` the module binds itself is not the one a star import of a project module brings
        Valid("""
            from utils import *
            import tvm
            relay = load_plugin()
            with relay.build_config(opt_level=3):
                pass
        """, target="0.8"),
        # the normal API of its time
        Valid(RELAY, """
            with relay.build_config(opt_level=3):
                pass
        """, target="0.6"),
        Valid("""
            from tvm.contrib import graph_runtime
        """, target="0.7"),
        Valid(RELAY, """
            x = relay.save_param_dict(params)
        """, target="0.7"),
        Valid("""
            import nnvm.compiler
        """, target="0.5"),
        # removed, not deprecated: TVM201's
        Valid(RELAY, """
            with relay.build_config(opt_level=3):
                pass
        """, target="0.20"),
        Valid("""
            import nnvm
        """, target="0.7"),
        # asnumpy before 0.8; in a module that imports MXNet (its NDArray has asnumpy too); another
        # library's function of that name; a module that does not use TVM
        Valid("""
            import tvm
            out = module.get_output(0).asnumpy()
        """, target="0.7"),
        Valid("""
            import tvm
            import mxnet as mx
            ref = mx.nd.array(x).asnumpy()
        """, target="0.8"),
        Valid("""
            import tvm
            import cupy
            host = cupy.asnumpy(x)
        """, target="0.8"),
        Valid("""
            import numpy as np
            out = result.asnumpy()
        """, target="0.8"),
        # inside the deprecated package's own tree: its modules and, for a package other than tvm, its tests
        Valid("", files={
            'nnvm/__init__.py': "",
            'nnvm/compiler/__init__.py': "",
            'nnvm/compiler/build_module.py': """
                from .._base import c_array
                import nnvm.symbol
                x = nnvm.symbol.Variable('x')
            """,
        }, target="0.6"),
        Valid("", files={
            'nnvm/tests/python/test_build.py': """
                import nnvm.compiler
                g = nnvm.compiler.build(net, 'llvm')
            """,
        }, target="0.6"),
        # the replacement itself
        Valid(RELAY, """
            with tvm.transform.PassContext(opt_level=3):
                pass
        """, target="0.8"),
        # code written for several releases: the fallback import is deliberate
        Valid("""
            try:
                from tvm.contrib import graph_executor
            except ImportError:
                from tvm.contrib import graph_runtime as graph_executor
        """, target="0.8"),
        # shadowed
        Valid("""
            def f(relay):
                return relay.build_config(opt_level=3)
        """, target="0.8"),
        # T.buffer_decl before its deprecation, and T.Buffer
        Valid("""
            from tvm.script import tir as T
            b = T.buffer_decl([1], dtype='float32')
        """, target="0.11"),
        Valid("""
            from tvm.script import tir as T
            b = T.Buffer([1], dtype='float32')
        """, target="0.12"),
        Valid("""
            from tvm.script import tirx as T
            b = T.Buffer([1], dtype='float32')
        """, target="0.27"),
    ]

    INVALID = [
        # the module importlib hands back is the module named
        Invalid("""
            import importlib
            relay = importlib.import_module("tvm.relay")
            with relay.build_config(opt_level=3):
                pass
        """, target="0.12", expect="`tvm.relay.build_config` is deprecated"),
        # a use spelt from above the reported import is a line of its own to change (jaeriver/dl_model_converter)
        Invalid("""
            import tvm
            from tvm.contrib import graph_runtime
            m = graph_runtime.create(g, lib, dev)
            m2 = tvm.contrib.graph_runtime.create(g, lib, dev)
        """, target="0.8", count=3, fixed="""
            import tvm
            from tvm.contrib import graph_executor as graph_runtime
            m = graph_runtime.create(g, lib, dev)
            m2 = tvm.contrib.graph_executor.create(g, lib, dev)
        """),
        # `relay` that `from utils import *` brings, where utils (the project's) imported it
        Invalid("""
            from utils import *
            import tvm
            with relay.build_config(opt_level=3):
                pass
        """, files={
            'utils.py': """
                from tvm import relay
            """,
        }, target="0.8", expect="`tvm.relay.build_config`"),
        Invalid("""
            import nnvm.compiler
        """, expect="deprecated since TVM 0.6", target="0.6"),
        Invalid(RELAY, """
            with relay.build_config(opt_level=3):
                pass
        """, expect="tvm.transform.PassContext", target="0.8", fixed="""
            with tvm.transform.PassContext(opt_level=3):
                pass
        """),
        # `import tvm` is added when the module has none
        Invalid("""
            from tvm import relay
            with relay.build_config(3, disabled_pass=['AlterOpLayout']):
                pass
        """, expect="deprecated since TVM 0.7", target="0.18", fixed="""
            from tvm import relay
            import tvm
            with tvm.transform.PassContext(3, disabled_pass=['AlterOpLayout']):
                pass
        """),
        # arguments PassContext does not take in that place: reported, not rewritten
        Invalid(RELAY, """
            with relay.build_config(opt_level=3, trace=t):
                pass
        """, expect="deprecated", target="0.8"),
        Invalid(RELAY, """
            cfg = dict(opt_level=3)
            with relay.build_config(**cfg):
                pass
        """, expect="deprecated", target="0.8"),
        # the import, and the call whose shim warns (rules/api_history.toml warning_calls; WANNA959/
        # tvm_learning, ArnavVarshney/4342-asl-recognition): the import's fix makes both right
        Invalid("""
            from tvm.contrib import graph_runtime
            m = graph_runtime.create(graph, lib, dev)
        """, expect="tvm.contrib.graph_executor", target="0.8", count=2, fixed="""
            from tvm.contrib import graph_executor as graph_runtime
            m = graph_runtime.create(graph, lib, dev)
        """),
        # a fork carrying its own TVM from before the rename runs its own graph_runtime, which
        # does not warn (tlc-pack/tenset, pku-liang/AMOS): the import alone; one from after it
        # (its tree has graph_executor) runs the shim, whose create() warns
        Invalid("""
            from tvm.contrib import graph_runtime
            m = graph_runtime.create(graph, lib, dev)
        """, files={
            "python/tvm/__init__.py": "",
            "python/tvm/contrib/__init__.py": "",
            "python/tvm/contrib/graph_runtime.py": "def create(graph_json_str, libmod, ctx):\n    pass\n",
        }, target="0.8", count=1, expect="`tvm.contrib.graph_runtime` is deprecated"),
        Invalid("""
            from tvm.contrib import graph_runtime
            m = graph_runtime.create(graph, lib, dev)
        """, files={
            "python/tvm/__init__.py": "",
            "python/tvm/contrib/__init__.py": "",
            "python/tvm/contrib/graph_executor.py": "def create(graph_json_str, libmod, device):\n    pass\n",
            "python/tvm/contrib/graph_runtime.py": "from . import graph_executor\n",
        }, target="0.8", count=2, expect="in favour of `tvm.contrib.graph_executor"),
        # a name the 0.8 shim does not hold warns nowhere: the import alone (tlc-pack/tenset)
        Invalid("""
            from tvm.contrib import graph_runtime as runtime
            data = runtime.save_param_dict(params)
        """, expect="`tvm.contrib.graph_runtime` is deprecated", target="0.8", count=1),
        Invalid("""
            import tvm.contrib.graph_runtime as gr
        """, expect="graph_executor", target="0.19", fixed="""
            import tvm.contrib.graph_executor as gr
        """),
        # (the shim's create(); the GraphModule it no longer holds is TVM201's)
        Invalid("""
            import tvm
            m = tvm.contrib.graph_runtime.create(graph, lib, dev)
        """, expect="graph_executor", target="0.12", fixed="""
            import tvm
            m = tvm.contrib.graph_executor.create(graph, lib, dev)
        """),
        # the new module reached through the 0.8 shim that imports it (Dennis-Johnson/TVM-M1
        # metal_sanity_check.py): the use is reported, and rewritten to the new module whole
        Invalid("""
            import tvm
            m = tvm.contrib.graph_runtime.graph_executor.GraphModule(lib['default'](dev))
        """, expect="in favour of `tvm.contrib.graph_executor.GraphModule`", detail="directly", target="0.12", fixed="""
            import tvm
            m = tvm.contrib.graph_executor.GraphModule(lib['default'](dev))
        """),
        Invalid("""
            from tvm.relay import save_param_dict
            blob = save_param_dict(params)
        """, expect="tvm.runtime.save_param_dict", target="0.8", fixed="""
            from tvm.runtime import save_param_dict
            blob = save_param_dict(params)
        """),
        Invalid(RELAY, """
            blob = relay.save_param_dict(params)
        """, expect="deprecated since TVM 0.8", target="0.19", fixed="""
            blob = tvm.runtime.save_param_dict(params)
        """),
        # a try that does not handle ImportError is no fallback
        Invalid("""
            try:
                from tvm.contrib import graph_runtime
            except ValueError:
                pass
        """, expect="graph_executor", target="0.8"),
        Invalid("""
            import tvm
            dev = tvm.gpu(0)
        """, expect="tvm.cuda", target="0.8", fixed="""
            import tvm
            dev = tvm.cuda(0)
        """),
        # every use of an entry is reported where it stands (as ruff's NPY201), each with its fix
        Invalid("""
            import tvm
            a = tvm.gpu(0)
            b = tvm.gpu(1)
        """, expect="tvm.cuda", target="0.8", count=2, fixed="""
            import tvm
            a = tvm.cuda(0)
            b = tvm.cuda(1)
        """),
        # a method of TVM's objects, on a receiver of any shape, in a module that uses TVM
        Invalid("""
            import tvm
            out = module.get_output(0).asnumpy()
            y = tvm.nd.array(x).asnumpy()
        """, target="0.8", count=2, expect="`NDArray.asnumpy()` is deprecated since TVM 0.8", fixed="""
            import tvm
            out = module.get_output(0).numpy()
            y = tvm.nd.array(x).numpy()
        """),
        # error handling is no version guard: `except Exception` around a use
        Invalid("""
            import tvm
            try:
                out = result.asnumpy()
            except Exception as e:
                print(e)
        """, target="0.8", expect="`NDArray.asnumpy()` is deprecated"),
        # tvmc (v0.12-v0.18) still parsed Relay text through the deprecated tvm.parser
        Invalid("""
            from tvm import parser
            ir_mod = parser.fromtext(text)
        """, expect="tvm.relay.fromtext", target="0.12"),
        # TVMScript in TVM's own tests (v0.12-v0.18)
        Invalid("""
            from tvm.script import tir as T
            b = T.buffer_decl([T.int64(768)], dtype='int8', data=x.data)
        """, detail="T.Buffer", target="0.18"),
        Invalid("""
            from tvm.script import tirx as T
            n = T.var('int32')
        """, expect="deprecated since TVM 0.24", target="0.27"),
    ]
