
b
xPlaceholder*&
_output_shapes
:*
dtype0*
shape:
n
ySpaceToDepthx*
T0*&
_output_shapes
:*

block_size*
data_formatNHWC"ª