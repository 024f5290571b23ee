
b
xPlaceholder*&
_output_shapes
:*
dtype0*
shape:
^
ConstConst*
_output_shapes
:*
dtype0*%
valueB"/Yp=ÅE?î*…æ†«ñ?
^
yBiasAddxConst*
T0*&
_output_shapes
:*
data_formatNCHW"™