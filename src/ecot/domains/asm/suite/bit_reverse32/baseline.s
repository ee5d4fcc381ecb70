	.file	"func.c"
	.text
	.p2align 4
	.globl	bit_reverse32
	.type	bit_reverse32, @function
bit_reverse32:
	movl	$32, %edx
	xorl	%eax, %eax
	.p2align 4,,10
	.p2align 3
.L2:
	movl	%edi, %ecx
	addl	%eax, %eax
	shrl	%edi
	andl	$1, %ecx
	orl	%ecx, %eax
	subl	$1, %edx
	jne	.L2
	ret
	.size	bit_reverse32, .-bit_reverse32
	.section	.note.GNU-stack,"",@progbits
