"""TVM201 removed-api: a module, function, class or attribute the target release no longer has."""

from __future__ import annotations

from tvmlint.checks.api_usage import HistoryRule
from tvmlint.checks.rule import Invalid, Valid
from tvmlint.knowledge.api_history import REMOVED


class RemovedApi(HistoryRule):
    status = REMOVED
    code = "TVM201"

    VALID = [
        # a method call behind `hasattr(x, "asnumpy")`: for an object that is not TVM's (tvm-head
        # tests/python/relax/test_relax_operators.py, after an isinstance check for TVM's Tensor)
        Valid("""
            import tvm
            def to_numpy(x):
                if isinstance(x, tvm.runtime.Tensor):
                    return x.numpy()
                elif hasattr(x, 'asnumpy'):
                    return x.asnumpy()
        """, target="0.27"),
        # the old method on the branch for releases without its replacement, in a statement or in
        # a conditional expression (AmlogicPublic/AI-Compiler, against a vendored 0.24)
        Valid("""
            import tvm
            def first_array(outputs):
                first = outputs[0]
                return first.numpy() if hasattr(first, 'numpy') else first.asnumpy()
        """, target="0.24"),
        Valid("""
            import tvm
            def to_numpy(out):
                if hasattr(out, 'numpy'):
                    return out.numpy()
                else:
                    return out.asnumpy()
        """, target="0.24"),
        # behind a visible version guard: hasattr of it or a module above it, __version__, a try that
        # catches AttributeError, a skipIf asking hasattr (tests written for several releases)
        Valid("""
            import tvm
            from tvm import relay
            if hasattr(relay.image, 'resize'):
                y = relay.image.resize(x, (2, 2))
        """, target="0.8"),
        Valid("""
            import tvm
            from tvm import relay
            import pytest
            @pytest.mark.skipif(not hasattr(relay.image, 'resize'), reason='old')
            def test_resize():
                y = relay.image.resize(x, (2, 2))
        """, target="0.8"),
        Valid("""
            import tvm
            from tvm import relay
            try:
                y = relay.image.resize(x, (2, 2))
            except AttributeError:
                y = relay.image.resize2d(x, (2, 2))
        """, target="0.8"),
        Valid("""
            import tvm
            if tvm.__version__ >= '0.8':
                dev = tvm.device('cpu')
            else:
                dev = tvm.context('cpu')
        """, target="0.21"),
        # a fork that carries its own TVM tree (a 0.6.dev snapshot, CortexFoundation/tvm-cvm) runs its
        # tests against it: what that tree still defines is there, whatever the release removed
        Valid("""
            from tvm import relay
            def test_adt():
                assert relay.ir_pass.infer_type(z(), mod).checked_type == nat()
        """, target="0.6", path="tests/python/relay/test_adt.py", files={
            "python/tvm/__init__.py": "from . import relay\n",
            "python/tvm/relay/__init__.py": "from . import ir_pass\n",
            "python/tvm/relay/ir_pass.py": "from ._ir_pass import *\n\ndef infer_type(expr, mod=None):\n    return expr\n",
        }),
        # a lazy import of another package, or a call whose name does not say what it returns
        Valid("""
            from utils import try_import_mxnet, load

            mx = try_import_mxnet()
            a = mx.nd.array(x, ctx=mx.cpu())
            tvm = load()
            b = tvm.nd.array(x, ctx=dev)
        """, target="0.8"),
        # the keyword of its time, and the new one
        Valid("""
            import tvm
            a = tvm.nd.array(x, ctx=tvm.cpu(0))
        """, target="0.7"),
        Valid("""
            import tvm
            a = tvm.nd.array(x, device=tvm.cpu(0))
        """, target="0.8"),
        # still there at the target
        Valid("""
            from tvm import relay
            with relay.build_config(opt_level=3):
                pass
        """, target="0.6"),
        Valid("""
            import nnvm.compiler
            graph, lib, params = nnvm.compiler.build(net, 'llvm')
        """, target="0.6"),
        Valid("""
            import tvm
            s = tvm.tir.Schedule(mod)
        """, target="0.23"),
        Valid("""
            from tvm.contrib import graph_executor
            m = graph_executor.GraphModule(lib['default'](dev))
        """, target="0.19"),
        Valid("""
            import tvm
            x = tvm.runtime.save_param_dict(params)
        """, target="0.27"),
        # a local name that looks like TVM's is not TVM's
        Valid("""
            class relay:
                @staticmethod
                def build_config(**kw):
                    return kw
            relay.build_config(opt_level=3)
        """, target="0.27"),
        Valid("""
            def f(nnvm):
                return nnvm.compiler.build(1)
        """, target="0.19"),
        Valid("""
            import tvm
            def f(tvm):
                return tvm.tir.Schedule(1)
        """, target="0.27"),
        # new names are fine
        Valid("""
            import tvm
            s = tvm.s_tir.Schedule(mod)
            T = tvm.tirx.transform.StmtSimplify()
        """, target="0.27"),
        Valid("""
            import tvm
            x = tvm.tir.const(1, 'int32')
            y = tvm.runtime.convert([1, 2])
        """, target="0.7"),
        # still there the release before their removal
        Valid("""
            import tvm
            assert tvm.ir.structural_equal(a, b)
        """, target="0.24"),
        Valid("""
            import tvm.testing
            @tvm.testing.requires_gpu
            def test_gpu():
                pass
        """, target="0.24"),
        Valid("""
            from tvm import te
            n = te.size_var('n')
        """, target="0.25"),
        Valid("""
            try:
                f()
            except tvm.TVMError:
                pass
            import tvm
        """, target="0.24"),
    ]

    INVALID = [
        # TVM reached through a library's lazy import (dmlc/gluon-nlp scripts/benchmarks/benchmark_utils.py)
        Invalid("""
            from gluonnlp.utils.lazy_imports import try_import_tvm

            def run(x):
                tvm = try_import_tvm()
                return tvm.nd.array(x, ctx=tvm.cpu())
        """, target="0.8", expect="has no keyword `ctx`"),
        # the 0.8 graph_runtime shim holds create() only (hogepodge/tvm-demo onnx/onnx_tutorial.py):
        # the import is deprecated, the class is gone
        Invalid("""
            from tvm.contrib import graph_runtime
            m = graph_runtime.GraphModule(lib["default"](dev))
        """, target="0.8", expect="`tvm.contrib.graph_runtime.GraphModule` does not exist in TVM 0.8"),
        Invalid("""
            import tvm
            m = tvm.contrib.graph_runtime.GraphModule(lib['default'](dev))
        """, expect="graph_executor", target="0.12", fixed="""
            import tvm
            m = tvm.contrib.graph_executor.GraphModule(lib['default'](dev))
        """),
        # a fork's own tree is asked, and it lacks the name: reported as for any project
        Invalid("""
            from tvm import relay
            y = relay.ir_pass.infer_type(x)
        """, target="0.6", path="tests/test_x.py", files={
            "python/tvm/__init__.py": "from . import relay\n",
            "python/tvm/relay/__init__.py": "from .transform import *\n",
            "python/tvm/relay/transform.py": "def InferType():\n    pass\n",
        }, expect="`tvm.relay.ir_pass.infer_type` does not exist in TVM 0.6"),
        # a guard that asks about something else guards nothing
        Invalid("""
            import tvm
            from tvm import relay
            if hasattr(x, 'shape'):
                y = relay.image.resize(x, (2, 2))
        """, target="0.8", expect="relay.image.resize"),
        # a keyword 0.8 renamed (ctx became device): a TypeError from then on
        Invalid("""
            import tvm
            dev = tvm.cpu(0)
            a = tvm.nd.array(x, ctx=dev)
        """, target="0.10", expect="has no keyword `ctx` (renamed `device` in 0.8)", fixed="""
            import tvm
            dev = tvm.cpu(0)
            a = tvm.nd.array(x, device=dev)
        """),
        Invalid("""
            import tvm
            from tvm import relay
            ex = relay.create_executor('graph', mod=mod, ctx=tvm.cpu(0), target='llvm')
        """, target="0.8", expect="renamed `device`"),
        # a method gone at the target: asnumpy at 0.21 and later
        Invalid("""
            import tvm
            out = module.get_output(0).asnumpy()
        """, target="0.21", expect="removed in 0.21 (AttributeError)", fixed="""
            import tvm
            out = module.get_output(0).numpy()
        """),
        Invalid("""
            import nnvm.compiler
        """, expect="removed in 0.7", target="0.7"),
        Invalid("""
            from tvm import relay
            mod = relay.ir_pass.infer_type(mod)
        """, expect="removed in 0.6", target="0.6"),
        Invalid("""
            from tvm import relay
        """, expect="removed in 0.20", target="0.27"),
        # the import, and each use whose entry says more than the import's (relay.transform, relay.build)
        Invalid("""
            from tvm import relay
            mod = relay.transform.FoldScaleAxis()(mod)
            lib = relay.build(mod, 'llvm')
        """, expect="removed in 0.20", target="0.20", count=3),
        # a use under the import's own entry is left to the import
        Invalid("""
            from tvm.relay import transform
            mod = transform.FoldScaleAxis()(mod)
            mod = transform.InferType()(mod)
        """, expect="removed in 0.20", target="0.20"),
        # an attribute path through a removed module, reached without importing it
        Invalid("""
            import tvm
            mod = tvm.tir.transform.Simplify()(mod)
        """, detail="tvm.tir was split", target="0.27"),
        Invalid("""
            import tvm
            sch = tvm.tir.Schedule(mod)
        """, expect="tvm.s_tir.Schedule", target="0.27", fixed="""
            import tvm
            sch = tvm.s_tir.Schedule(mod)
        """),
        # after `from tvm import tir` the use tells where the name went, the import cannot
        Invalid("""
            from tvm import tir
            sch = tir.Schedule(mod)
        """, expect="tvm.tir", target="0.27", count=2),
        # a call of an aliased name
        Invalid("""
            from tvm.relay import build_config as bc
        """, expect="tvm.transform.PassContext", target="0.20"),
        Invalid("""
            from tvm.contrib import graph_runtime
            m = graph_runtime.create(graph, lib, ctx)
        """, expect="removed in 0.20", target="0.20"),
        Invalid("""
            import tvm
            from tvm import relay
            x = relay.save_param_dict(params)
        """, expect="0.20", target="0.20", count=2, fixed="""
            import tvm
            from tvm import relay
            x = tvm.runtime.save_param_dict(params)
        """),
        Invalid("""
            from tvm.script import tir as T
        """, expect="tvm.script.tirx", target="0.27", fixed="""
            from tvm.script import tirx as T
        """),
        Invalid("""
            import tvm
            x = tvm.nd.array(data, dev)
        """, expect="removed in 0.22", target="0.22", fixed="""
            import tvm
            x = tvm.runtime.tensor(data, dev)
        """),
        # the call passes ctx=, which runtime.tensor does not take: reported, not rewritten
        Invalid("""
            import tvm
            x = tvm.nd.array(data, ctx=dev)
        """, expect="removed in 0.22", target="0.27"),
        # a use with an entry of its own is reported after its import (the seed's nnvm.compiler.build)
        Invalid("""
            import nnvm.compiler
            graph, lib, params = nnvm.compiler.build(net, 'llvm')
        """, expect="removed in 0.7", target="0.7", count=2),
        Invalid("""
            from tvm.relay import ir_pass
            mod = ir_pass.infer_type(mod)
        """, expect="removed in 0.6", target="0.6", count=2),
        # the pre-0.7 top-level API (tvm/api.py, tvm/intrin.py) moved to tvm.tir / tvm.te / tvm.runtime
        Invalid("""
            import tvm
            x = tvm.const(1, 'int32')
        """, expect="removed in 0.7", target="0.7", fixed="""
            import tvm
            x = tvm.tir.const(1, 'int32')
        """),
        Invalid("""
            import tvm
            s = tvm.call_extern('float32', 'expf', x)
        """, expect="tvm.tir.call_extern", target="0.8", fixed="""
            import tvm
            s = tvm.tir.call_extern('float32', 'expf', x)
        """),
        Invalid("""
            from tvm.topi.util import get_const_tuple
        """, expect="tvm.topi.utils", target="0.8", fixed="""
            from tvm.topi.utils import get_const_tuple
        """),
        # TVM's own head still names tvm.error.TVMError, gone since 0.25
        Invalid("""
            import tvm
            try:
                f()
            except (TypeError, tvm.error.TVMError) as error:
                pass
        """, detail="RuntimeError", target="0.27"),
        Invalid("""
            import tvm
            assert tvm.ir.structural_equal(a, b)
        """, expect="tvm_ffi.structural_equal", target="0.25"),
        Invalid("""
            import tvm.testing
            @tvm.testing.requires_cuda
            def test_cuda():
                pass
        """, detail="tvm.testing.env", target="0.25"),
        Invalid("""
            import tvm.testing
            @tvm.testing.parametrize_targets('llvm', 'cuda')
            def test_t(target, dev):
                pass
        """, detail="pytest", target="0.26"),
        Invalid("""
            from tvm import te
            n = te.size_var('n')
        """, expect="tvm.te.var", target="0.26"),
        Invalid("""
            from tvm import topi
            s = topi.cuda.schedule_injective(outs)
        """, expect="removed in 0.20", target="0.20"),
        Invalid("""
            from tvm.relax.backend.contrib.cutlass import partition_for_cutlass
        """, expect="removed in 0.20", target="0.20", fixed="""
            from tvm.relax.backend.cuda.cutlass import partition_for_cutlass
        """),
        Invalid("""
            import tvm.micro
        """, detail="microTVM", target="0.19"),
    ]
