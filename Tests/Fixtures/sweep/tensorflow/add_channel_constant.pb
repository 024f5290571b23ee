
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
valueB"|¹ý?Ðû?‡Ýý?
C
yAddxConst*
T0*&
_output_shapes
:"ª