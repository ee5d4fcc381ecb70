module ushift8 (
    input  wire       clk,
    input  wire       rst_n,
    input  wire [1:0] mode,
    input  wire       sin,
    input  wire [7:0] d,
    output reg  [7:0] q
);
    always @(posedge clk or negedge rst_n) begin
        if (!rst_n)
            q <= 8'h00;
        else begin
            case (mode)
                2'b01:   q <= {q[6:0], sin};
                2'b10:   q <= {sin, q[7:1]};
                2'b11:   q <= d;
                default: q <= q;
            endcase
        end
    end
endmodule
