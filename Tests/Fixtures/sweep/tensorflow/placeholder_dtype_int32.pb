
b
xPlaceholder*&
_output_shapes
:*
dtype0*
shape:
<
yAbsx*
T0*&
_output_shapes
:"ª