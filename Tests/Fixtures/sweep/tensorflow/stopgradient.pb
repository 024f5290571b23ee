
b
xPlaceholder*&
_output_shapes
:*
dtype0*
shape:
@
ReluRelux*
T0*&
_output_shapes
:
H
yStopGradientRelu*
T0*&
_output_shapes
:"ª