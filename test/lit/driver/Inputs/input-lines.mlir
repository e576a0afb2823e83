// The input of ../input-lines.mlir, which appends its lines 18 on.
func.func @main(
    %a0: tensor<4xf32> {mhlo.memory_kind = "pinned_host"} loc("in.mlir":5017:4),
    %a1: tensor<4xf32> {mhlo.memory_kind = "pinned_host"} loc("in.mlir":5016:3),
    %a2: tensor<4xf32> {mhlo.memory_kind = "pinned_host"} loc("in.mlir":2:1),
    %a3: tensor<4xf32> {mhlo.memory_kind = "pinned_host"} loc("in.mlir":4097:2),
    %a4: tensor<4xf32> {mhlo.memory_kind = "pinned_host"} loc("in.mlir":4096:1),
    %a5: tensor<4xf32> {mhlo.memory_kind = "pinned_host"} loc("in.mlir":3:500),
    %a6: tensor<4xf32> {mhlo.memory_kind = "pinned_host"} loc("in.mlir":99999:1),
    %a7: tensor<4xf32> {mhlo.memory_kind = "pinned_host"} loc("in.mlir":5018:1),
    %a8: tensor<4xf32> {mhlo.memory_kind = "pinned_host"} loc("in.mlir":5016:10),
    %a9: tensor<4xf32> {mhlo.memory_kind = "pinned_host"} loc("in.mlir":20:11),
    %a10: tensor<4xf32> {mhlo.memory_kind = "pinned_host"} loc("in.mlir":33:1),
    %a11: tensor<4xf32> {mhlo.memory_kind = "pinned_host"} loc("in.mlir":48:9))
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  return %a0, %a1, %a2, %a3, %a4, %a5, %a6, %a7, %a8, %a9, %a0, %a10, %a11 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
