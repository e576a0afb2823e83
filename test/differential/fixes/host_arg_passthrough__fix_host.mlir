#loc1 = loc("x")
"builtin.module"() <{sym_name = "jit_identity"}> ({
  "sdy.mesh"() <{mesh = #sdy.mesh<[]>, sym_name = "empty_mesh"}> {stablehlo.mesh = {axes = []}} : () -> () loc(#loc)
  "func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host", sdy.sharding = #sdy.sharding<@empty_mesh, [{}]>}], function_type = (tensor<8xf32>) -> tensor<8xf32>, res_attrs = [{jax.result_info = "result", mhlo.memory_kind = "pinned_host"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<8xf32> loc("x")):
    "func.return"(%arg0) : (tensor<8xf32>) -> () loc(#loc13)
  }) : () -> () loc(#loc)
}) {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> () loc(#loc)
#loc = loc(unknown)
#loc2 = loc("tools/differential/worker.py":116:11 to :81)
#loc3 = loc("tools/differential/worker.py":155:36 to :58)
#loc4 = loc("tools/differential/worker.py":239:13 to :33)
#loc5 = loc("tools/differential/worker.py":244:4 to :10)
#loc6 = loc("lower_program"(#loc2))
#loc7 = loc("do_lower"(#loc3))
#loc8 = loc("main"(#loc4))
#loc9 = loc("<module>"(#loc5))
#loc10 = loc(callsite(#loc8 at #loc9))
#loc11 = loc(callsite(#loc7 at #loc10))
#loc12 = loc(callsite(#loc6 at #loc11))
#loc13 = loc("jit(identity)"(#loc12))

