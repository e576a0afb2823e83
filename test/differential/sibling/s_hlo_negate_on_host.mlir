#loc1 = loc("p0")
"builtin.module"() <{sym_name = "negate_on_host"}> ({
  "func.func"() <{function_type = (tensor<8x128xf32>) -> tensor<8x128xf32>, sym_name = "main"}> ({
  ^bb0(%arg0: tensor<8x128xf32> loc("p0")):
    %0 = "stablehlo.negate"(%arg0) : (tensor<8x128xf32>) -> tensor<8x128xf32> loc(#loc4)
    "func.return"(%0) : (tensor<8x128xf32>) -> () loc(#loc)
  }) : () -> () loc(#loc)
}) {hostoffload.hlo_entry = {arguments = ["p0"], root = "negate.1"}, mhlo.cross_program_prefetches = [], mhlo.frontend_attributes = {arg_memory_spaces = "5", out_memory_spaces = "5"}, mhlo.input_output_alias = [], mhlo.is_dynamic = false, mhlo.use_auto_spmd_partitioning = false, mhlo.xla_entry_computation_parameter_layouts = [dense<[1, 0]> : tensor<2xindex>], mhlo.xla_entry_computation_parameter_tiles = [[]], mhlo.xla_entry_computation_result_layout = [dense<[1, 0]> : tensor<2xindex>], mhlo.xla_entry_computation_result_tiles = [[]]} : () -> () loc(#loc)
#loc = loc(unknown)
#loc2 = loc("negate.1")
#loc3 = loc("s_hlo_negate_on_host.hlo":5:0)
#loc4 = loc(fused[#loc2, #loc3])
