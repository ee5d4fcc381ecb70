module johnson5 (
    input  wire       clk,
    input  wire       rst_n,
    input  wire       en,
    output reg  [4:0] q
);
    always @(posedge clk or negedge rst_n) begin
        if (!rst_n)
            q <= 5'b00000;
        else if (en)
            q <= {q[3:0], ~q[4]};
    end
endmodule
