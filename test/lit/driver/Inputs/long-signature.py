"""Prints a module whose entry function's signature is one line of about 6 KB, as
``lowered.as_text()`` prints a model's: a host argument, 119 device ones, and an E1200
from tanh of the host argument returned to a device output."""

ARGUMENTS = ['%arg0: tensor<8xf32> {mhlo.memory_kind = "pinned_host"}'] + [
    f'%arg{i}: tensor<8xf32> {{mhlo.memory_kind = "device"}}' for i in range(1, 120)
]
RESULT = '(tensor<8xf32> {mhlo.memory_kind = "device"})'
print(f"func.func @main({', '.join(ARGUMENTS)}) -> {RESULT} {{")
print('  %0 = "stablehlo.tanh"(%arg0) : (tensor<8xf32>) -> tensor<8xf32>')
print("  return %0 : tensor<8xf32>")
print("}")
