
b
xPlaceholder*&
_output_shapes
:*
dtype0*
shape:
c
	IdentityN	IdentityNxx*
T
2*8
_output_shapes&
$::
G
yReluIdentityN:1*
T0*&
_output_shapes
:"ª