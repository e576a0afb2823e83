#loc1 = loc("x")
#loc7 = loc("reduce_sum")
#loc13 = loc("reduce_sum:"(#loc7))
"builtin.module"() <{sym_name = "jit_reduce_host"}> ({
  "sdy.mesh"() <{mesh = #sdy.mesh<[]>, sym_name = "empty_mesh"}> {stablehlo.mesh = {axes = []}} : () -> () loc(#loc)
  "func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host", sdy.sharding = #sdy.sharding<@empty_mesh, [{}]>}], function_type = (tensor<8xf32>) -> tensor<f32>, res_attrs = [{jax.result_info = "result", mhlo.memory_kind = "pinned_host"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<8xf32> loc("x")):
    %0 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32> loc(#loc19)
    %1 = "stablehlo.reduce"(%arg0, %0) <{dimensions = array<i64: 0>}> ({
    ^bb0(%arg1: tensor<f32> loc("reduce_sum:"(#loc7)), %arg2: tensor<f32> loc("reduce_sum:"(#loc7))):
      %2 = "stablehlo.add"(%arg1, %arg2) : (tensor<f32>, tensor<f32>) -> tensor<f32> loc(#loc19)
      "stablehlo.return"(%2) : (tensor<f32>) -> () loc(#loc19)
    }) : (tensor<8xf32>, tensor<f32>) -> tensor<f32> loc(#loc19)
    "func.return"(%1) : (tensor<f32>) -> () loc(#loc18)
  }) : () -> () loc(#loc)
}) {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> () loc(#loc)
#loc = loc(unknown)
#loc2 = loc("tools/differential/catalogue.py":93:11 to :21)
#loc3 = loc("tools/differential/worker.py":116:11 to :81)
#loc4 = loc("tools/differential/worker.py":155:36 to :58)
#loc5 = loc("tools/differential/worker.py":239:13 to :33)
#loc6 = loc("tools/differential/worker.py":244:4 to :10)
#loc8 = loc("reduce_host"(#loc2))
#loc9 = loc("lower_program"(#loc3))
#loc10 = loc("do_lower"(#loc4))
#loc11 = loc("main"(#loc5))
#loc12 = loc("<module>"(#loc6))
#loc14 = loc(callsite(#loc11 at #loc12))
#loc15 = loc(callsite(#loc10 at #loc14))
#loc16 = loc(callsite(#loc9 at #loc15))
#loc17 = loc(callsite(#loc8 at #loc16))
#loc18 = loc("jit(reduce_host)"(#loc16))
#loc19 = loc("jit(reduce_host)/reduce_sum"(#loc17))

