
b
xPlaceholder*&
_output_shapes
:*
dtype0*
shape:
f
y/reduction_indicesConst*
_output_shapes
:*
dtype0*
valueB:
ÿÿÿÿÿÿÿÿÿ
n
yMaxxy/reduction_indices*

Tidx0*
T0*&
_output_shapes
:*
	keep_dims("ª