
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
valueB"ÍÄw?7[¡?·ÁÃ?
G
yMaximumxConst*
T0*&
_output_shapes
:"ª