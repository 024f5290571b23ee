
R
xPlaceholder*
_output_shapes

:*
dtype0*
shape
:
f
ConstConst*
_output_shapes
:*
dtype0*-
value$B"")?–Ïù¾lµ?|™¾{O_?â¿
V
yBiasAddxConst*
T0*
_output_shapes

:*
data_formatNHWC"ª