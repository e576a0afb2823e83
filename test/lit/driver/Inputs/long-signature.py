"""Prints a module whose entry function's signature is one line of about 6 KB, as
``lowered.as_text()`` prints a model's: 120 arguments, of which #0, #60 and #119 (at the
start, in the middle and at the end of the line) are in host memory, and an E1200 from their
sum returned to a device output."""

HOST = (0, 60, 119)
ARGUMENTS = [
    f'%arg{i}: tensor<8xf32> {{mhlo.memory_kind = "{"pinned_host" if i in HOST else "device"}"}}'
    for i in range(120)
]
SUM = "(tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>"
print(f"func.func @main({', '.join(ARGUMENTS)}) -> tensor<8xf32> {{")
print(f'  %0 = "stablehlo.add"(%arg0, %arg60) : {SUM}')
print(f'  %1 = "stablehlo.add"(%0, %arg119) : {SUM}')
print("  return %1 : tensor<8xf32>")
print("}")
