
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
valueB"C?òÏ?‰ò?
C
ySubxConst*
T0*&
_output_shapes
:"ª