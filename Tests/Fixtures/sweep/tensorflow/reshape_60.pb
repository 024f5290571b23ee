
b
xPlaceholder*&
_output_shapes
:*
dtype0*
shape:
Q
y/shapeConst*
_output_shapes
:*
dtype0*
valueB:<
K
yReshapexy/shape*
Tshape0*
T0*
_output_shapes
:<"ª