
>
inputPlaceholder*
dtype0*
s