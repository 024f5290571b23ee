
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
valueB"9|?}δώ?	έθ?
G
yRealDivxConst*
T0*&
_output_shapes
:"ª