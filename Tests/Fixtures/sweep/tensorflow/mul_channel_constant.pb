
b
xPlaceholder*&
_output_shapes
:*
dtype0*
shape:
Z
ConstConst*
_output_shapes
:*
dtype0*!
valueB"•´?íPŽ?ïð?
C
yMulxConst*
T0*&
_output_shapes
:"ª