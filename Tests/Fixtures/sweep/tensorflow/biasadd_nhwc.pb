
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
valueB"kœ¼½½KDÀ«¿ËJ’>
^
yBiasAddxConst*
T0*&
_output_shapes
:*
data_formatNHWC"ª