
b
xPlaceholder*&
_output_shapes
:*
dtype0*
shape:
“
yAvgPoolx*
T0*&
_output_shapes
:*
data_formatNHWC*
ksize
*
paddingVALID*
strides
"ª