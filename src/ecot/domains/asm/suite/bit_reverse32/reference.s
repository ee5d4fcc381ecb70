# Swap ever larger bit groups in parallel, then bswap the bytes: no loop.
	.text
	.globl	bit_reverse32
	.type	bit_reverse32, @function
bit_reverse32:
	movl	%edi, %eax
	movl	%eax, %edx
	shrl	%edx
	andl	$0x55555555, %edx
	andl	$0x55555555, %eax
	addl	%eax, %eax
	orl	%edx, %eax
	movl	%eax, %edx
	shrl	$2, %edx
	andl	$0x33333333, %edx
	andl	$0x33333333, %eax
	shll	$2, %eax
	orl	%edx, %eax
	movl	%eax, %edx
	shrl	$4, %edx
	andl	$0x0f0f0f0f, %edx
	andl	$0x0f0f0f0f, %eax
	shll	$4, %eax
	orl	%edx, %eax
	bswapl	%eax
	ret
	.size	bit_reverse32, .-bit_reverse32
	.section	.note.GNU-stack,"",@progbits
