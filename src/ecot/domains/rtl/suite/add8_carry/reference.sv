module add8_carry (
    input  wire [7:0] a,
    input  wire [7:0] b,
    input  wire       cin,
    output wire [7:0] sum,
    output wire       cout
);
    wire [8:0] total;

    assign total = {1'b0, a} + {1'b0, b} + {8'b0, cin};
    assign sum   = total[7:0];
    assign cout  = total[8];
endmodule
