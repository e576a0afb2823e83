#loc1 = loc("x")
"builtin.module"() <{sym_name = "jit_identity"}> ({
  "sdy.mesh"() <{mesh = #sdy.mesh<[]>, sym_name = "empty_mesh"}> {stablehlo.mesh = {axes = []}} : () -> () loc(#loc)
  "func.func"() <{arg_attrs = [{mhlo.memory_kind = "device", sdy.sharding = #sdy.sharding<@empty_mesh, [{}]>}], function_type = (tensor<8xf32>) -> tensor<8xf32>, res_attrs = [{jax.result_info = "result", mhlo.memory_kind = "unpinned_host", sdy.sharding = #sdy.sharding<@empty_mesh, [{}]>}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<8xf32> loc("x")):
    %0 = "stablehlo.custom_call"(%arg0) <{api_version = 1 : i32, backend_config = "", call_target_name = "annotate_device_placement", called_computations = [], has_side_effect = true}> {mhlo.frontend_attributes = {_xla_buffer_placement = "unpinned_host"}} : (tensor<8xf32>) -> tensor<8xf32> loc(#loc10)
    "func.return"(%0) : (tensor<8xf32>) -> () loc(#loc10)
  }) : () -> () loc(#loc)
}) {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> () loc(#loc)
#loc = loc(unknown)
#loc2 = loc("test/corpus/generate.py":208:9 to :43)
#loc3 = loc("test/corpus/generate.py":217:49 to :70)
#loc4 = loc("test/corpus/generate.py":228:4 to :10)
#loc5 = loc("lower"(#loc2))
#loc6 = loc("main"(#loc3))
#loc7 = loc("<module>"(#loc4))
#loc8 = loc(callsite(#loc6 at #loc7))
#loc9 = loc(callsite(#loc5 at #loc8))
#loc10 = loc("jit(identity)"(#loc9))
