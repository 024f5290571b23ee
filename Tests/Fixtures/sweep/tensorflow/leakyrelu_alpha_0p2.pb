
b
xPlaceholder*&
_output_shapes
:*
dtype0*
shape:
R
y	LeakyRelux*
T0*&
_output_shapes
:*
alpha%ÍÌL>"ª