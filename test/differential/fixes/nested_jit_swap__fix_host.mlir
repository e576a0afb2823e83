#loc = loc(unknown)
#loc1 = loc("x")
#loc2 = loc("y")
"builtin.module"() <{sym_name = "jit_nested_jit_swap"}> ({
  "sdy.mesh"() <{mesh = #sdy.mesh<[]>, sym_name = "empty_mesh"}> {stablehlo.mesh = {axes = []}} : () -> () loc(#loc)
  "func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host", sdy.sharding = #sdy.sharding<@empty_mesh, [{}]>}, {mhlo.memory_kind = "device", sdy.sharding = #sdy.sharding<@empty_mesh, [{}]>}], function_type = (tensor<8xf32>, tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>), res_attrs = [{jax.result_info = "result[0]", mhlo.memory_kind = "device"}, {jax.result_info = "result[1]", mhlo.memory_kind = "pinned_host"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg2: tensor<8xf32> loc("x"), %arg3: tensor<8xf32> loc("y")):
    %0:2 = "func.call"(%arg2, %arg3) <{callee = @inner_pair}> : (tensor<8xf32>, tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) loc(#loc18)
    "func.return"(%0#0, %0#1) : (tensor<8xf32>, tensor<8xf32>) -> () loc(#loc17)
  }) : () -> () loc(#loc)
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<8xf32>, tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>), res_attrs = [{}, {}], sym_name = "inner_pair", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<8xf32> loc(unknown), %arg1: tensor<8xf32> loc(unknown)):
    "func.return"(%arg1, %arg0) : (tensor<8xf32>, tensor<8xf32>) -> () loc(#loc)
  }) : () -> () loc(#loc20)
}) {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> () loc(#loc)
#loc3 = loc("tools/differential/catalogue.py":362:11 to :27)
#loc4 = loc("tools/differential/worker.py":116:11 to :81)
#loc5 = loc("tools/differential/worker.py":155:36 to :58)
#loc6 = loc("tools/differential/worker.py":239:13 to :33)
#loc7 = loc("tools/differential/worker.py":244:4 to :10)
#loc8 = loc("nested_jit_swap"(#loc3))
#loc9 = loc("lower_program"(#loc4))
#loc10 = loc("do_lower"(#loc5))
#loc11 = loc("main"(#loc6))
#loc12 = loc("<module>"(#loc7))
#loc13 = loc(callsite(#loc11 at #loc12))
#loc14 = loc(callsite(#loc10 at #loc13))
#loc15 = loc(callsite(#loc9 at #loc14))
#loc16 = loc(callsite(#loc8 at #loc15))
#loc17 = loc("jit(nested_jit_swap)"(#loc15))
#loc18 = loc("jit(nested_jit_swap)/jit(inner_pair)"(#loc16))
#loc19 = loc("jit(nested_jit_swap)/jit"(#loc16))
#loc20 = loc("jit:"(#loc19))

