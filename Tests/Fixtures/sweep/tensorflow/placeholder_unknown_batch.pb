
b
xPlaceholder*&
_output_shapes
:*
dtype0*
shape:
=
yRelux*
T0*&
_output_shapes
:"ª