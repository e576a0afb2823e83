module @jit_step attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @empty_mesh = <[]> {stablehlo.mesh = {axes = []}}
  func.func public @main(%arg0: tensor<1024xf32> {mhlo.memory_kind = "device", sdy.sharding = #sdy.sharding<@empty_mesh, [{}]>}, %arg1: tensor<1024xf32> {mhlo.memory_kind = "pinned_host", sdy.sharding = #sdy.sharding<@empty_mesh, [{}]>}) -> (tensor<1024xf32> {jax.result_info = "result[0]", mhlo.memory_kind = "device"}, tensor<1024xf32> {jax.result_info = "result[1]", mhlo.memory_kind = "device"}, tensor<1024xf32> {jax.result_info = "result[2]", mhlo.memory_kind = "pinned_host"}) {
    %cst = stablehlo.constant dense<0.899999976> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<1024xf32>
    %1 = stablehlo.multiply %arg1, %0 : tensor<1024xf32>
    %2 = stablehlo.add %1, %arg0 : tensor<1024xf32>
    %cst_0 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<1024xf32>
    %4 = stablehlo.multiply %arg0, %3 : tensor<1024xf32>
    %5 = stablehlo.custom_call @annotate_device_placement(%4) {backend_config = "", has_side_effect = true, mhlo.frontend_attributes = {_xla_buffer_placement = "pinned_host"}} : (tensor<1024xf32>) -> tensor<1024xf32>
    %6 = stablehlo.subtract %arg0, %2 : tensor<1024xf32>
    return %6, %2, %5 : tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>
  }
}
