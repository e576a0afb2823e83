"builtin.module"() ({
  "func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host"}], function_type = (tensor<4xf32>) -> tensor<4xf32>, res_attrs = [{jax.result_info = "result", mhlo.memory_kind = "device"}], sym_name = "main"}> ({
  ^bb0(%arg0: tensor<4xf32>):
    %0 = "stablehlo.multiply"(%arg0, %arg0) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    "func.return"(%0) : (tensor<4xf32>) -> ()
  }) : () -> ()
}) : () -> ()
