"""TVM201 removed-api: a module, function, class or attribute the target release no longer has."""

from __future__ import annotations

from tvmlint.checks.api_usage import HistoryRule
from tvmlint.checks.rule import Case
from tvmlint.knowledge.api_history import REMOVED


class RemovedApi(HistoryRule):
    status = REMOVED
    code = "TVM201"

    VALID = [
        # a method call behind `hasattr(x, "asnumpy")`: for an object that is not TVM's (tvm-head
        # tests/python/relax/test_relax_operators.py, after an isinstance check for TVM's Tensor)
        Case("import tvm\ndef to_numpy(x):\n    if isinstance(x, tvm.runtime.Tensor):\n        return x.numpy()\n"
             "    elif hasattr(x, 'asnumpy'):\n        return x.asnumpy()\n", target="0.27"),
        # behind a visible version guard: hasattr of it or a module above it, __version__, a try that
        # catches AttributeError, a skipIf asking hasattr (tests written for several releases)
        Case("import tvm\nfrom tvm import relay\nif hasattr(relay.image, 'resize'):\n    y = relay.image.resize(x, (2, 2))\n",
             target="0.8"),
        Case("import tvm\nfrom tvm import relay\nimport pytest\n"
             "@pytest.mark.skipif(not hasattr(relay.image, 'resize'), reason='old')\ndef test_resize():\n"
             "    y = relay.image.resize(x, (2, 2))\n", target="0.8"),
        Case("import tvm\nfrom tvm import relay\ntry:\n    y = relay.image.resize(x, (2, 2))\nexcept AttributeError:\n"
             "    y = relay.image.resize2d(x, (2, 2))\n", target="0.8"),
        Case("import tvm\nif tvm.__version__ >= '0.8':\n    dev = tvm.device('cpu')\nelse:\n    dev = tvm.context('cpu')\n",
             target="0.21"),
        # the keyword of its time, and the new one
        Case("import tvm\na = tvm.nd.array(x, ctx=tvm.cpu(0))\n", target="0.7"),
        Case("import tvm\na = tvm.nd.array(x, device=tvm.cpu(0))\n", target="0.8"),
        # still there at the target
        Case("from tvm import relay\nwith relay.build_config(opt_level=3):\n    pass\n", target="0.6"),
        Case("import nnvm.compiler\ngraph, lib, params = nnvm.compiler.build(net, 'llvm')\n", target="0.6"),
        Case("import tvm\ns = tvm.tir.Schedule(mod)\n", target="0.23"),
        Case("from tvm.contrib import graph_executor\nm = graph_executor.GraphModule(lib['default'](dev))\n", target="0.19"),
        Case("import tvm\nx = tvm.runtime.save_param_dict(params)\n", target="0.27"),
        # a local name that looks like TVM's is not TVM's
        Case("class relay:\n    @staticmethod\n    def build_config(**kw):\n        return kw\nrelay.build_config(opt_level=3)\n", target="0.27"),
        Case("def f(nnvm):\n    return nnvm.compiler.build(1)\n", target="0.19"),
        Case("import tvm\ndef f(tvm):\n    return tvm.tir.Schedule(1)\n", target="0.27"),
        # new names are fine
        Case("import tvm\ns = tvm.s_tir.Schedule(mod)\nT = tvm.tirx.transform.StmtSimplify()\n", target="0.27"),
        Case("import tvm\nx = tvm.tir.const(1, 'int32')\ny = tvm.runtime.convert([1, 2])\n", target="0.7"),
        # still there the release before their removal
        Case("import tvm\nassert tvm.ir.structural_equal(a, b)\n", target="0.24"),
        Case("import tvm.testing\n@tvm.testing.requires_gpu\ndef test_gpu():\n    pass\n", target="0.24"),
        Case("from tvm import te\nn = te.size_var('n')\n", target="0.25"),
        Case("try:\n    f()\nexcept tvm.TVMError:\n    pass\nimport tvm\n", target="0.24"),
    ]

    INVALID = [
        # a guard that asks about something else guards nothing
        Case("import tvm\nfrom tvm import relay\nif hasattr(x, 'shape'):\n    y = relay.image.resize(x, (2, 2))\n",
             target="0.8", expect="relay.image.resize"),
        # a keyword 0.8 renamed (ctx became device): a TypeError from then on
        Case("import tvm\ndev = tvm.cpu(0)\na = tvm.nd.array(x, ctx=dev)\n", target="0.10",
             expect="has no keyword `ctx` (renamed `device` in 0.8)", fixed="import tvm\ndev = tvm.cpu(0)\na = tvm.nd.array(x, device=dev)\n"),
        Case("import tvm\nfrom tvm import relay\nex = relay.create_executor('graph', mod=mod, ctx=tvm.cpu(0), target='llvm')\n",
             target="0.8", expect="renamed `device`"),
        # a method gone at the target: asnumpy at 0.21 and later
        Case("import tvm\nout = module.get_output(0).asnumpy()\n", target="0.21", expect="removed in 0.21 (AttributeError)",
             fixed="import tvm\nout = module.get_output(0).numpy()\n"),
        Case("import nnvm.compiler\n", expect="removed in 0.7", target="0.7"),
        Case("from tvm import relay\nmod = relay.ir_pass.infer_type(mod)\n", expect="removed in 0.6", target="0.6"),
        Case("from tvm import relay\n", expect="removed in 0.20", target="0.27"),
        # the import, and each use whose entry says more than the import's (relay.transform, relay.build)
        Case("from tvm import relay\nmod = relay.transform.FoldScaleAxis()(mod)\nlib = relay.build(mod, 'llvm')\n",
             expect="removed in 0.20", target="0.20", count=3),
        # a use under the import's own entry is left to the import
        Case("from tvm.relay import transform\nmod = transform.FoldScaleAxis()(mod)\nmod = transform.InferType()(mod)\n",
             expect="removed in 0.20", target="0.20"),
        # an attribute path through a removed module, reached without importing it
        Case("import tvm\nmod = tvm.tir.transform.Simplify()(mod)\n", detail="tvm.tir was split", target="0.27"),
        Case(
            "import tvm\nsch = tvm.tir.Schedule(mod)\n", expect="tvm.s_tir.Schedule", target="0.27",
            fixed="import tvm\nsch = tvm.s_tir.Schedule(mod)\n",
        ),
        # after `from tvm import tir` the use tells where the name went, the import cannot
        Case("from tvm import tir\nsch = tir.Schedule(mod)\n", expect="tvm.tir", target="0.27", count=2),
        # a call of an aliased name
        Case("from tvm.relay import build_config as bc\n", expect="tvm.transform.PassContext", target="0.20"),
        Case(
            "from tvm.contrib import graph_runtime\nm = graph_runtime.create(graph, lib, ctx)\n",
            expect="removed in 0.20", target="0.20",
        ),
        Case(
            "import tvm\nfrom tvm import relay\nx = relay.save_param_dict(params)\n",
            expect="0.20", target="0.20", count=2,
            fixed="import tvm\nfrom tvm import relay\nx = tvm.runtime.save_param_dict(params)\n",
        ),
        Case(
            "from tvm.script import tir as T\n", expect="tvm.script.tirx", target="0.27",
            fixed="from tvm.script import tirx as T\n",
        ),
        Case(
            "import tvm\nx = tvm.nd.array(data, dev)\n", expect="removed in 0.22", target="0.22",
            fixed="import tvm\nx = tvm.runtime.tensor(data, dev)\n",
        ),
        # the call passes ctx=, which runtime.tensor does not take: reported, not rewritten
        Case("import tvm\nx = tvm.nd.array(data, ctx=dev)\n", expect="removed in 0.22", target="0.27"),
        # a use with an entry of its own is reported after its import (the seed's nnvm.compiler.build)
        Case("import nnvm.compiler\ngraph, lib, params = nnvm.compiler.build(net, 'llvm')\n",
             expect="removed in 0.7", target="0.7", count=2),
        Case("from tvm.relay import ir_pass\nmod = ir_pass.infer_type(mod)\n", expect="removed in 0.6", target="0.6", count=2),
        # the pre-0.7 top-level API (tvm/api.py, tvm/intrin.py) moved to tvm.tir / tvm.te / tvm.runtime
        Case("import tvm\nx = tvm.const(1, 'int32')\n", expect="removed in 0.7", target="0.7",
             fixed="import tvm\nx = tvm.tir.const(1, 'int32')\n"),
        Case("import tvm\ns = tvm.call_extern('float32', 'expf', x)\n", expect="tvm.tir.call_extern", target="0.8",
             fixed="import tvm\ns = tvm.tir.call_extern('float32', 'expf', x)\n"),
        Case("from tvm.topi.util import get_const_tuple\n", expect="tvm.topi.utils", target="0.8",
             fixed="from tvm.topi.utils import get_const_tuple\n"),
        # TVM's own head still names tvm.error.TVMError, gone since 0.25
        Case("import tvm\ntry:\n    f()\nexcept (TypeError, tvm.error.TVMError) as error:\n    pass\n",
             detail="RuntimeError", target="0.27"),
        Case("import tvm\nassert tvm.ir.structural_equal(a, b)\n", expect="tvm_ffi.structural_equal", target="0.25"),
        Case("import tvm.testing\n@tvm.testing.requires_cuda\ndef test_cuda():\n    pass\n",
             detail="tvm.testing.env", target="0.25"),
        Case("import tvm.testing\n@tvm.testing.parametrize_targets('llvm', 'cuda')\ndef test_t(target, dev):\n    pass\n",
             detail="pytest", target="0.26"),
        Case("from tvm import te\nn = te.size_var('n')\n", expect="tvm.te.var", target="0.26"),
        Case("from tvm import topi\ns = topi.cuda.schedule_injective(outs)\n", expect="removed in 0.20", target="0.20"),
        Case("from tvm.relax.backend.contrib.cutlass import partition_for_cutlass\n", expect="removed in 0.20", target="0.20",
             fixed="from tvm.relax.backend.cuda.cutlass import partition_for_cutlass\n"),
        Case("import tvm.micro\n", detail="microTVM", target="0.19"),
    ]
